import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { findSessionUser, sessionCookieName } from "@/lib/auth/sessions";
import { isDatabaseUnavailable } from "@/lib/db/faults";
import { flowCookieName, findFlowByCookie } from "@/lib/flow/flows";
import { toScreenBranding } from "@/lib/partners/branding";

/** The browser's flow and signed-in user, read once per request. */
export const loadFlowScreen = cache(async () => {
  const store = await cookies();
  const [flow, user] = await Promise.all([
    findFlowByCookie(store.get(flowCookieName())?.value),
    findSessionUser(store.get(sessionCookieName())?.value),
  ]).catch((error: unknown) => {
    // The error screen needs no database: it says the service is briefly unavailable.
    if (isDatabaseUnavailable(error)) redirect("/error?reason=unavailable");
    throw error;
  });
  const branding = flow ? toScreenBranding(flow.client.partner, flow.client.name) : null;
  return { flow, user, branding };
});

export type FlowScreen = Awaited<ReturnType<typeof loadFlowScreen>>;
export type LoadedFlow = NonNullable<FlowScreen["flow"]>;

export async function requestNonce(): Promise<string | undefined> {
  return (await headers()).get("x-nonce") ?? undefined;
}
