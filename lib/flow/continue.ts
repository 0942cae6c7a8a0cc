import { findSignedInUser } from "../auth/sessions";
import { tenantSubject } from "../banking/tenants";
import { privateJson } from "../http/respond";
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

/**
 * Where a flow goes on after re-confirming a sign-in for a change (`then`):
 * only these screens, so the parameter cannot send the browser anywhere else.
 */
const CONTINUE_THEN = { setup: "/setup" } as const;
export type ContinueThen = keyof typeof CONTINUE_THEN;

/**
 * The sign-in page that re-confirms a stale session before an irreversible
 * change (docs/sessions.md), as the same address, then back to `returnUrl`.
 */
export function reconfirmChangePath(email: string, returnUrl: string): string {
  return `/login?${new URLSearchParams({ email, reconfirm: "change", returnUrl })}`;
}

/**
 * The answer to a page's script whose change needs a fresh sign-in: 401
 * `reauth_required` with the sign-in page to send the browser to. The page
 * keeps what the person did (a key made for starting over stays in the
 * browser), so the change goes through once they are back.
 */
export function freshSignInRequired(email: string, returnUrl: string): Response {
  return privateJson(
    {
      error: "reauth_required",
      error_description: "sign in again to confirm this change",
      location: reconfirmChangePath(email, returnUrl),
    },
    401,
  );
}

/** The same for a change made inside the browser's flow: back to the flow, then to `then`. */
export const flowFreshSignInRequired = (email: string, then: ContinueThen) =>
  freshSignInRequired(email, `${CONTINUE_PATH}?${new URLSearchParams({ then })}`);

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
  const then = new URL(request.url).searchParams.get("then");
  if (then !== null && Object.hasOwn(CONTINUE_THEN, then)) {
    return redirect(CONTINUE_THEN[then as ContinueThen]);
  }
  return redirect(next.path);
}
