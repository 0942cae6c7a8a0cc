import { z } from "zod";
import { ACCOUNT_ACTION_PAGES, accountCsrfToken, readAccountPost } from "../account/session";
import { requestAudit } from "../audit/context";
import { throttlePasskeySignIn, type PasskeyLimitName } from "../auth/sign-in-limits";
import {
  findSignedInUser,
  isFreshSignIn,
  replaceBrowserSession,
  type SignedInUser,
} from "../auth/sessions";
import { timingSafeEqualString } from "../crypto/constant-time";
import { getEnv } from "../env";
import { CONTINUE_PATH, freshSignInRequired } from "../flow/continue";
import { isValidCsrfToken } from "../flow/csrf";
import { FLOW_ENDED_PATH } from "../flow/dead-ends";
import { findBrowserFlow } from "../flow/flows";
import { guardFlowPost, type FlowPostRule } from "../flow/guard";
import { bodyTooLargeFor, readJsonBody } from "../http/body-limits";
import { clientIpOf } from "../http/client-ip";
import { isSameOrigin } from "../http/origin";
import { errorJson, privateJson } from "../http/respond";
import { toSafeReturnPath } from "../http/return-url";
import { mailPasskeyAdded } from "../mail/account-changed";
import { emailSchema, normalizeEmail } from "../mail/address";
import { signInOptions, verifySignIn } from "./authentication";
import { passkeyName, registerPasskey, registrationOptions } from "./registration";
import { listPasskeys, removePasskey, setPasskeyKey } from "./store";

/**
 * The passkey endpoints (docs/sessions.md#passkeys, docs/account.md#passkeys).
 *
 * Signing in is open to anybody, from this service's own pages (same Origin),
 * within per-client-address limits (docs/sign-in-limits.md#passkeys); it
 * makes the browser session exactly as a mail sign-in does. Registering a
 * passkey, giving one the key and removing one are the signed-in person's,
 * each with its CSRF token: the account action's, or inside a flow the flow's
 * key-setup token. Registering and removing need a fresh sign-in.
 */

/** The two sign-in posts: JSON from this service's pages; a live flow is read, never required. */
const SIGN_IN_POST = {
  body: "json",
  errors: "json",
  flow: "optional",
  user: "ignored",
  token: null,
} as const satisfies FlowPostRule;

const refuse = errorJson;

async function throttled(request: Request, limit: PasskeyLimitName): Promise<Response | null> {
  const refusal = await throttlePasskeySignIn({
    limit,
    clientIp: clientIpOf(request),
    now: new Date(),
  });
  if (!refusal) return null;
  return privateJson({ error: "throttled", retryAfter: refusal.retryAfterSeconds }, 429, {
    "Retry-After": String(refusal.retryAfterSeconds),
  });
}

/** POST /passkeys/sign-in/options `{}` → `{challengeId, options}`. */
export async function handleSignInOptions(request: Request): Promise<Response> {
  const post = await guardFlowPost(request, { ...SIGN_IN_POST, flow: "ignored" });
  if (post instanceof Response) return post;
  const limited = await throttled(request, "passkey-options-client");
  if (limited) return limited;
  return privateJson(await signInOptions());
}

/**
 * Where the browser goes once signed in, as after a mail sign-in: the sign-in
 * page's return path; inside a live flow, the flow (as whoever signed in);
 * from a page of a flow that is over, the screen that says so.
 */
function nextAfterSignIn(fields: Record<string, unknown>, liveFlow: boolean): string {
  const returnUrl = typeof fields.returnUrl === "string" ? fields.returnUrl : null;
  const returnPath = toSafeReturnPath(returnUrl, getEnv().issuer);
  if (returnPath) return returnPath;
  if (liveFlow) return CONTINUE_PATH;
  if (typeof fields.flowId === "string" && fields.flowId !== "") return FLOW_ENDED_PATH;
  return "/";
}

/**
 * POST /passkeys/sign-in `{challengeId, response, flowId?, returnUrl?, expectEmail?}` →
 * `{next, userId, email, wrappedKey}` with the new session's cookie; a
 * refusal is `400 {error}`. `expectEmail` is the address the sign-in page
 * holds (typed, or the partner's login_hint): when the passkey belongs to
 * another account, nobody is signed in and the answer is
 * `409 {error: "other_account", email}`, the passkey's own address (the
 * person just proved they hold it), so the page can ask which account is
 * meant before anything is shared.
 */
export async function handleSignIn(request: Request): Promise<Response> {
  const post = await guardFlowPost(request, SIGN_IN_POST);
  if (post instanceof Response) return post;
  const limited = await throttled(request, "passkey-sign-in-client");
  if (limited) return limited;
  const { fields } = post.body;
  const result = await verifySignIn({
    challengeId: fields.challengeId,
    response: fields.response,
    inFlow: post.flow !== null,
    clientIp: clientIpOf(request),
  });
  if (!result.ok) return privateJson({ error: result.error }, 400);
  if (isOtherAccount(fields.expectEmail, result.user.email)) {
    return privateJson({ error: "other_account", email: result.user.email }, 409);
  }
  // A new session in place of the browser's previous one, whoever that was
  // (lib/flow/login.ts): made now, so it is a fresh sign-in.
  const cookie = await replaceBrowserSession(request, result.user.id);
  const response = privateJson({
    next: nextAfterSignIn(fields, post.flow !== null),
    userId: result.user.id,
    email: result.user.email,
    wrappedKey: result.wrappedKey,
  });
  response.headers.append("Set-Cookie", cookie);
  return response;
}

/** Whether the address the page holds is a whole address, and not the passkey's account's. */
function isOtherAccount(expected: unknown, email: string): boolean {
  if (typeof expected !== "string") return false;
  const parsed = emailSchema.safeParse(expected);
  return parsed.success && parsed.data !== normalizeEmail(email);
}

interface PasskeyWrite {
  user: SignedInUser;
  fields: Record<string, unknown>;
}

const csrfRefusal = () => refuse(403, "csrf", "the request did not come from this service's pages");

/**
 * The checks of a signed-in person's passkey post, in this order: the Origin
 * (403 `csrf`), the session (401 `login_required`), a JSON object body (400
 * `invalid_request`), the token (403 `csrf`): the add-passkey account token,
 * or the key-setup token of the browser's live flow of this same person;
 * then, when `fresh`, a fresh sign-in (401 `reauth_required` with the sign-in
 * page, which comes back to /account or to the flow).
 */
async function readPasskeyWrite(
  request: Request,
  fresh: boolean,
): Promise<PasskeyWrite | Response> {
  if (!isSameOrigin(request)) return csrfRefusal();
  const user = await findSignedInUser(request);
  if (!user) return refuse(401, "login_required", "sign in first");
  const read = await readJsonBody(request);
  if (!read.ok) {
    return read.problem === "too_large"
      ? bodyTooLargeFor(request, read.limit)
      : refuse(400, "invalid_request", "the body must be JSON");
  }
  const value = read.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return refuse(400, "invalid_request", "the body must be a JSON object");
  }
  const fields = value as Record<string, unknown>;
  const csrf = typeof fields.csrf === "string" ? fields.csrf : "";
  let inFlow = false;
  if (!timingSafeEqualString(csrf, accountCsrfToken(user, "add-passkey"))) {
    const flow = await findBrowserFlow(request);
    if (!flow || flow.userId !== user.userId || !isValidCsrfToken(flow, "key-setup", csrf)) {
      return csrfRefusal();
    }
    inFlow = true;
  }
  if (fresh && !isFreshSignIn(user)) {
    return freshSignInRequired(
      user.email,
      inFlow ? CONTINUE_PATH : ACCOUNT_ACTION_PAGES["add-passkey"],
    );
  }
  return { user, fields };
}

/** POST /passkeys/register/options `{csrf}` → `{challengeId, options}`. */
export async function handleRegisterOptions(request: Request): Promise<Response> {
  const write = await readPasskeyWrite(request, true);
  if (write instanceof Response) return write;
  return privateJson(await registrationOptions(write.user));
}

const REGISTRATION_STATUS = {
  challenge_expired: 400,
  passkey_invalid: 400,
  invalid_wrapped_key: 400,
  passkey_exists: 409,
  key_mismatch: 409,
} as const;

/** POST /passkeys/register `{csrf, challengeId, response, name?, wrappedKey?}` → 201 `{id, holdsKey}`. */
export async function handleRegister(request: Request): Promise<Response> {
  const write = await readPasskeyWrite(request, true);
  if (write instanceof Response) return write;
  const { user, fields } = write;
  const name = passkeyName(fields.name);
  if (name === null)
    return refuse(400, "invalid_request", "the name must be at most 64 characters");
  const now = new Date();
  const result = await registerPasskey({
    userId: user.userId,
    challengeId: fields.challengeId,
    response: fields.response,
    name,
    wrappedKey: fields.wrappedKey,
    audit: requestAudit(request, { kind: "user", id: user.userId }),
    now,
  });
  if (!result.ok) {
    return privateJson({ error: result.refusal }, REGISTRATION_STATUS[result.refusal]);
  }
  // A passkey signs in without the mailbox: the person hears of each one added.
  await mailPasskeyAdded({ email: user.email, locale: user.locale, passkeyName: name, at: now });
  return privateJson({ id: result.id, holdsKey: result.holdsKey }, 201);
}

/**
 * The passkey id of /account/passkeys/{id} and /account/passkeys/{id}/key; a
 * segment that is not valid percent-encoding names no passkey ("").
 */
function passkeyIdOf(request: Request): string {
  const segments = new URL(request.url).pathname.split("/");
  try {
    return decodeURIComponent(segments[3] ?? "");
  } catch {
    return "";
  }
}

/** GET /account/passkeys → the signed-in person's passkeys, newest first. */
export async function handleListPasskeys(request: Request): Promise<Response> {
  const user = await findSignedInUser(request);
  if (!user) return refuse(401, "login_required", "sign in first");
  const { passkeys } = await listPasskeys(user.userId);
  return privateJson(passkeys);
}

/** DELETE /account/passkeys/{id} `{csrf}` → `{ok: true}`. */
export async function handleRemovePasskey(request: Request): Promise<Response> {
  const read = await readAccountPost(request, "remove-passkey", z.object({ csrf: z.string() }));
  if (read instanceof Response) return read;
  const result = await removePasskey({
    userId: read.user.userId,
    passkeyId: passkeyIdOf(request),
    audit: requestAudit(request, { kind: "user", id: read.user.userId }),
  });
  switch (result) {
    case "not_found":
      return refuse(404, "not_found", "no such passkey");
    case "last_key_holder":
      return refuse(
        409,
        "last_key_holder",
        "this passkey is the only way back to your key: save a backup of the key first",
      );
    case "removed":
      return privateJson({ ok: true });
  }
}

const SET_KEY_REFUSALS = {
  not_found: [404, "no such passkey"],
  invalid_wrapped_key: [400, "not a wrapped key"],
  key_mismatch: [409, "the wrapped key is not your registered key"],
  key_held: [409, "the passkey already holds your key"],
} as const;

/** PUT /account/passkeys/{id}/key `{csrf, wrappedKey}` → `{ok: true}`. */
export async function handleSetPasskeyKey(request: Request): Promise<Response> {
  const write = await readPasskeyWrite(request, false);
  if (write instanceof Response) return write;
  const result = await setPasskeyKey({
    userId: write.user.userId,
    passkeyId: passkeyIdOf(request),
    wrappedKey: write.fields.wrappedKey,
  });
  if (result === "stored") return privateJson({ ok: true });
  const [status, description] = SET_KEY_REFUSALS[result];
  return refuse(status, result, description);
}
