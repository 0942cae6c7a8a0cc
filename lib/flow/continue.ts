import { findSignedInUser } from "../auth/sessions";
import { tenantSubject } from "../banking/tenants";
import { attachUser, findBrowserFlow, keyModeFor } from "./flows";

/**
 * GET /login/continue: where a sign-in inside a flow returns to. The
 * browser's own flow (its cookie) continues as whoever is signed in now, at
 * the first step that person still needs; a flow that was signed out of, or
 * is re-confirming its sign-in, so carries on without starting over at the
 * partner.
 */
export const CONTINUE_PATH = "/login/continue";

const redirect = (location: string) =>
  new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });

/** The sign-in page of the browser's flow, returning here afterwards. */
export function flowLoginPath(params: Record<string, string> = {}): string {
  return `/login?${new URLSearchParams({ ...params, returnUrl: CONTINUE_PATH })}`;
}

export async function handleFlowContinue(request: Request): Promise<Response> {
  const [flow, user] = await Promise.all([findBrowserFlow(request), findSignedInUser(request)]);
  if (!flow) return redirect("/error?reason=expired");
  if (!user) return redirect(flowLoginPath());
  // Attaching sets the flow's user and first step and drops any earlier
  // consent: it was given under an earlier sign-in, perhaps by someone else.
  const subject = tenantSubject(flow.client.partner?.id ?? null, {
    id: user.userId,
    email: user.email,
  });
  const next = await attachUser(
    flow,
    { id: user.userId, publicKey: user.publicKey },
    await keyModeFor(flow.client.partner, subject),
    subject,
  );
  return redirect(next.path);
}
