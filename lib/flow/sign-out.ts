import { endBrowserSession, findSignedInUser, signOutToken } from "../auth/sessions";
import { timingSafeEqualString } from "../crypto/constant-time";
import { flowLoginPath } from "./continue";
import { isSameOrigin } from "../http/origin";
import { detachUser, findBrowserFlow } from "./flows";

/**
 * POST /logout: a plain form post, so it works without JavaScript. It needs
 * this service's Origin and, while a session exists, that session's sign-out
 * token; then the session's row is deleted (the cookie's value is worthless
 * from then on, wherever a copy of it lives) and the cookie cleared. A GET
 * never signs out: links and prefetches must not end sessions.
 *
 * Where the browser lands: the dashboard's sign-in after the dashboard's
 * form; inside a flow, the same flow's sign-in page, so someone else can sign
 * in and carry on to the partner; otherwise the landing page.
 */
export const SIGN_OUT_PATH = "/logout";

/** Forms name where they were posted from; only the dashboard needs its own landing. */
export const SIGNED_OUT_FROM_DASHBOARD = "dashboard";

const DASHBOARD_SIGN_IN = `/login?${new URLSearchParams({ returnUrl: "/dashboard" })}`;

export async function handleSignOut(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) return new Response(null, { status: 403 });
  const form = new URLSearchParams(await request.text());
  const [user, flow] = await Promise.all([findSignedInUser(request), findBrowserFlow(request)]);
  if (user && !timingSafeEqualString(form.get("csrf") ?? "", signOutToken(user))) {
    return new Response(null, { status: 403 });
  }
  const cleared = await endBrowserSession(request);
  if (user && flow) await detachUser(flow.id);
  const location =
    form.get("from") === SIGNED_OUT_FROM_DASHBOARD
      ? DASHBOARD_SIGN_IN
      : flow
        ? flowLoginPath()
        : "/";
  return new Response(null, {
    status: 303,
    headers: { Location: location, "Set-Cookie": cleared, "Cache-Control": "no-store" },
  });
}

/** GET /logout: 405, naming the one method that signs out. */
export function refuseSignOutByGet(): Response {
  return new Response(null, {
    status: 405,
    headers: { Allow: "POST", "Cache-Control": "no-store" },
  });
}
