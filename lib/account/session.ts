import type { z } from "zod";
import { findSignedInUser, isFreshSignIn, type SignedInUser } from "../auth/sessions";
import { timingSafeEqualString } from "../crypto/constant-time";
import { keyedHash } from "../crypto/keyed-hash";
import { bodyTooLargeFor, readJsonBody } from "../http/body-limits";
import { isSameOrigin } from "../http/origin";
import { errorJson } from "../http/respond";
import { freshSignInRequired } from "../flow/continue";

/**
 * The guards of every "My access" action (docs/account.md): a POST from this
 * service's own origin, by a signed-in person, carrying the CSRF token the
 * page rendered for that action. The token is a keyed hash of the browser
 * session and the action, so it is worthless to another session and to
 * another action, and unforgeable without the server secret.
 */

export type AccountAction =
  | "end-access"
  | "remove-bank"
  | "start-over"
  | "delete"
  /** Registering a passkey, and giving one the key (lib/passkeys/handlers.ts). */
  | "add-passkey"
  | "remove-passkey"
  /** Making a personal key by hand, and revoking one (lib/account/personal-keys.ts). */
  | "create-key"
  | "revoke-key";

export const ACCOUNT_ACTIONS = [
  "end-access",
  "remove-bank",
  "start-over",
  "delete",
  "add-passkey",
  "remove-passkey",
  "create-key",
  "revoke-key",
] as const satisfies readonly AccountAction[];

/**
 * Requests that only record what the person tells the service, and so need
 * no fresh sign-in: "I saved the backup file".
 */
export type AccountNote = "backup-saved";

export function accountCsrfToken(
  user: Pick<SignedInUser, "sessionId">,
  action: AccountAction | AccountNote,
): string {
  return keyedHash("account-csrf", `${action}:${user.sessionId}`);
}

export const refuse = errorJson;

export interface AccountPost<T> {
  user: SignedInUser;
  body: T;
}

/** Where the page that made each action's request is, to come back to after signing in again. */
export const ACCOUNT_ACTION_PAGES: Record<AccountAction, string> = {
  "end-access": "/account",
  "remove-bank": "/account",
  "start-over": "/account?key=start-over",
  delete: "/account",
  "add-passkey": "/account",
  "remove-passkey": "/account",
  "create-key": "/account",
  "revoke-key": "/account",
};

/**
 * Reads an action's JSON body `{csrf, ...}` and checks, in this order: the
 * Origin (403 `csrf`), the session (401 `login_required`), the body
 * (a body that is not JSON: 400 `invalid_request`), the CSRF token (403
 * `csrf`), a fresh sign-in (401 `reauth_required` with the sign-in page's
 * `location`), then the body's shape (400 `invalid_request`).
 *
 * Every action here is irreversible or hands something over, so a session
 * older than FRESH_SIGN_IN_SECONDS, or a session cookie copied to another
 * browser, is not enough: the person signs in again by mail first
 * (docs/sessions.md#re-confirming-before-an-irreversible-change).
 */
export function readAccountPost<S extends z.ZodType<object>>(
  request: Request,
  action: AccountAction,
  schema: S,
): Promise<AccountPost<z.infer<S>> | Response> {
  return readGuarded(request, action, schema, ACCOUNT_ACTION_PAGES[action]);
}

/** The same checks for an `AccountNote`, except the fresh sign-in. */
export function readAccountNote<S extends z.ZodType<object>>(
  request: Request,
  action: AccountNote,
  schema: S,
): Promise<AccountPost<z.infer<S>> | Response> {
  return readGuarded(request, action, schema, null);
}

/** `freshFor`: the page to come back to after signing in again; null asks no fresh sign-in. */
async function readGuarded<S extends z.ZodType<object>>(
  request: Request,
  action: AccountAction | AccountNote,
  schema: S,
  freshFor: string | null,
): Promise<AccountPost<z.infer<S>> | Response> {
  if (!isSameOrigin(request)) {
    return refuse(403, "csrf", "the request did not come from this service's pages");
  }
  const user = await findSignedInUser(request);
  if (!user) return refuse(401, "login_required", "sign in first");
  const read = await readJsonBody(request);
  if (!read.ok) {
    return read.problem === "too_large"
      ? bodyTooLargeFor(request, read.limit)
      : refuse(400, "invalid_request", "the body must be JSON");
  }
  const json = read.value;
  const csrf =
    typeof json === "object" && json !== null && "csrf" in json && typeof json.csrf === "string"
      ? json.csrf
      : "";
  if (!timingSafeEqualString(csrf, accountCsrfToken(user, action))) {
    return refuse(403, "csrf", "the request did not come from this service's pages");
  }
  if (freshFor !== null && !isFreshSignIn(user)) return freshSignInRequired(user.email, freshFor);
  const parsed = schema.safeParse(json);
  if (!parsed.success) return refuse(400, "invalid_request", "the body is not valid");
  return { user, body: parsed.data };
}
