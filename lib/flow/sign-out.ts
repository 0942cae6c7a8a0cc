import { endBrowserSession } from "../auth/sessions";
import { flowLoginPath } from "./continue";
import { detachUser } from "./flows";
import { guardFlowPost, type FlowPostRule } from "./guard";

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

/** Whoever is signed in (with the session's token), inside a flow or not. */
export const SIGN_OUT_FORM = {
  body: "form",
  errors: "empty",
  flow: "optional",
  user: "optional",
  token: "sign-out",
} as const satisfies FlowPostRule;

export async function handleSignOut(request: Request): Promise<Response> {
  const post = await guardFlowPost(request, SIGN_OUT_FORM);
  if (post instanceof Response) return post;
  const { flow, user } = post;
  const { form } = post.body;
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
