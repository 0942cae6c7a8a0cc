import { bodyTooLargeFor } from "../http/body-limits";
import { jsonResponse } from "../http/respond";
import { OAuthError, toErrorBody } from "../oauth/errors";
import { oauthJson } from "../oauth/responses";
import { FLOW_ENDED_PATH, seeOther, STALE_TAB_PATH } from "./dead-ends";

/**
 * Every refusal a hosted-flow post can give at its door (lib/flow/guard.ts),
 * in one table: its status and, for refusals that have a way forward, the
 * screen that says what happened. How the browser is answered:
 *
 * - a refusal with a screen, to a plain HTML form post: a 303 to that screen;
 * - to a page's script posting JSON: the status with `{error, location}`, the
 *   screen the script sends the browser to;
 * - a refusal without a screen: the status with the post's documented error
 *   body (`ErrorBody`): none for the sign-in, bank and sign-out forms (only a
 *   forged or broken post gets one, and there is nothing to show it),
 *   `{error}` for the key and consent posts, and the OAuth error body
 *   (`invalid_request`, RFC 6749 §5.2) for "Back to the partner" under /oauth/.
 *
 * A body over the size limit is answered as the service's HTTP server
 * answers it (lib/http/body-limits.ts), so the answer is the same whichever
 * of the two sees it first.
 */

/** The flow's current screen, for a post that does not belong to the step the flow is at. */
export const RESUME_SCREEN = "resume";

export interface FlowRefusalRule {
  status: number;
  /** Where a browser is sent: a path, the flow's current screen, or none. */
  screen: string | typeof RESUME_SCREEN | null;
  /** The `error_description` of the OAuth shape (ASCII, RFC 6749 §5.2). */
  description: string;
}

export const FLOW_REFUSALS = {
  /** The Origin is missing or another site's (RFC 6454): nothing of the post counts. */
  cross_origin: { status: 403, screen: null, description: "cross-origin request refused" },
  /** Not the content type the post is made with, or a body that does not parse as it. */
  invalid_body: { status: 400, screen: null, description: "the body is not a valid form" },
  /** Larger than the path's body limit (lib/http/body-limits.ts). */
  body_too_large: { status: 413, screen: null, description: "request body too large" },
  /** This browser has no live flow: it ended, expired, or never was. */
  no_flow: { status: 401, screen: FLOW_ENDED_PATH, description: "no live authorization request" },
  /** The post names a flow that is over, and this browser has none to go on with. */
  flow_ended: { status: 409, screen: FLOW_ENDED_PATH, description: "the authorization ended" },
  /** Nobody, or somebody other than the flow's user, is signed in. */
  signed_out: { status: 401, screen: "/login", description: "sign in first" },
  /** The form's token is missing, forged, for another action or another session. */
  invalid_csrf: { status: 403, screen: null, description: "invalid CSRF token" },
  /** The token is genuinely another flow's: a tab whose flow this browser replaced. */
  stale_tab: { status: 409, screen: STALE_TAB_PATH, description: "the page is out of date" },
  /** The post belongs to a step the flow is not at (a screen left open, a hand-made post). */
  wrong_step: { status: 409, screen: RESUME_SCREEN, description: "not at this step" },

  // The handlers' own refusals, after the door (the key and consent posts).
  /** Not a raw P-256 public point in base64 (docs/key-model.md). */
  invalid_key: { status: 400, screen: null, description: "invalid public key" },
  /** Starting over with the key it replaces. */
  same_key: { status: 400, screen: null, description: "the new key is the old key" },
  /** The user's key is fixed once registered: another one does not match it. */
  key_mismatch: { status: 409, screen: null, description: "another key is registered" },
  /** The key changed since the screen was shown (started over elsewhere). */
  key_changed: { status: 409, screen: null, description: "the key changed" },
  /**
   * User-key approval without the proof that the browser holds the key: the
   * consent page's sealed challenge, opened (docs/sessions.md). The page is
   * shown again, with a challenge for this session.
   */
  key_not_proven: { status: 403, screen: "/consent", description: "the key was not proven" },
  /** User-key approval before the key and a first bank exist. */
  onboarding_incomplete: {
    status: 409,
    screen: null,
    description: "set up a key and a bank first",
  },
} as const satisfies Record<string, FlowRefusalRule>;

export type FlowRefusal = keyof typeof FLOW_REFUSALS;

export type ErrorBody = "empty" | "json" | "oauth";

export interface RefusalContext {
  /** The browser posted a plain form, so it follows a redirect to a screen. */
  byForm: boolean;
  errorBody: ErrorBody;
  /** The flow's current screen, for `wrong_step`. */
  resume?: string;
  /** The limit the body went over, for `body_too_large`. */
  limit?: number;
}

/** The one answer to a refused flow post. */
export function refuseFlowPost(
  request: Request,
  reason: FlowRefusal,
  context: RefusalContext,
): Response {
  if (reason === "body_too_large") return bodyTooLargeFor(request, context.limit ?? 0);
  const rule: FlowRefusalRule = FLOW_REFUSALS[reason];
  const screen = rule.screen === RESUME_SCREEN ? (context.resume ?? "/login") : rule.screen;
  if (screen && context.byForm) return seeOther(screen);
  if (context.errorBody === "json") {
    return jsonResponse(screen ? { error: reason, location: screen } : { error: reason }, {
      status: rule.status,
      headers: { "Cache-Control": "no-store" },
    });
  }
  if (context.errorBody === "oauth") {
    return oauthJson(toErrorBody(new OAuthError("invalid_request", rule.description)), rule.status);
  }
  return new Response(null, { status: rule.status, headers: { "Cache-Control": "no-store" } });
}
