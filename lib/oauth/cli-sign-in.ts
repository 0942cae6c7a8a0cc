import { z } from "zod";
import { findSignedInUser, type SignedInUser } from "../auth/sessions";
import { recordKeyRevoked } from "../audit/api-keys";
import { timingSafeEqualString } from "../crypto/constant-time";
import { parseRawPublicKey } from "../crypto/envelope";
import { keyedHash, keyedHashCandidates } from "../crypto/keyed-hash";
import { randomToken } from "../crypto/random";
import { db } from "../db/client";
import { getEnv } from "../env";
import { readFormBody, readJsonBody } from "../http/body-limits";
import { clientIpOf } from "../http/client-ip";
import { isSameOrigin } from "../http/origin";
import { errorJson, privateJson } from "../http/respond";
import { log } from "../log";
import { dropOtherWrappedKeys } from "../passkeys/store";
import { COMMAND_LINE_CLIENT, issuePersonalKey } from "./personal-keys";
import { isWellFormedS256Challenge, verifiesS256 } from "./pkce";

/**
 * The command-line client's sign-in (docs/own-data.md#the-command-line-sign-in),
 * the loopback redirect of RFC 8252 (OAuth 2.0 for native apps) with PKCE S256:
 *
 * 1. The program listens on 127.0.0.1 and opens the person's browser at
 *    `GET /auth/cli/start?port=<its port>&code_challenge=<S256>[&state=…]`.
 * 2. That page signs the person in (the hosted sign-in), has them set up
 *    their key if they have none, and asks them to confirm.
 * 3. Confirming (`POST /auth/cli/confirm`) makes a one-time code and sends the
 *    browser to `http://127.0.0.1:<port>/callback?code=…`, never anywhere else.
 * 4. The program redeems the code with its verifier (`POST /auth/cli/token`,
 *    JSON `{code, codeVerifier}`), once, within CLI_CODE_LIFETIME_SECONDS, for
 *    a personal key: `{apiKey, apiBaseUrl, user, prefix}`.
 *
 * The key reads the person's data sealed to their own key; the private key
 * never passes through here: the person gives it to the program themselves.
 */

export const CLI_START_PATH = "/auth/cli/start";
export const CLI_CONFIRM_PATH = "/auth/cli/confirm";

/** How long a confirmed sign-in's code can be redeemed. */
export const CLI_CODE_LIFETIME_SECONDS = 300;

/** Why a start request is refused: what the page and the confirmation say. */
export type CliStartProblem = "port" | "challenge" | "method" | "state";

export interface CliStart {
  port: number;
  codeChallenge: string;
  /** The program's own value, echoed to its listener; null when it sent none. */
  state: string | null;
}

/** A port number as the program's listener has it: 1–65535, in decimal, no sign or zeros. */
const PORT_PATTERN = /^[1-9][0-9]{0,4}$/;
/** What a state may hold: unreserved characters, as the program's random values are. */
const STATE_PATTERN = /^[A-Za-z0-9._~-]{1,200}$/;

/** Exactly one value of a parameter, or null (missing or repeated). */
function single(params: URLSearchParams, name: string): string | null {
  const values = params.getAll(name);
  return values.length === 1 ? (values[0] ?? null) : null;
}

/**
 * The start request's parameters, checked: a loopback port, an S256
 * challenge (a `code_challenge_method`, if sent, must be S256: a plain
 * challenge would let whoever sees the code redeem it) and an optional state.
 */
export function parseCliStart(params: URLSearchParams): CliStart | { problem: CliStartProblem } {
  const port = single(params, "port");
  if (port === null || !PORT_PATTERN.test(port) || Number(port) > 65535) return { problem: "port" };
  const method = params.getAll("code_challenge_method");
  if (method.length > 1 || (method.length === 1 && method[0] !== "S256")) {
    return { problem: "method" };
  }
  const challenge = single(params, "code_challenge");
  if (challenge === null || !isWellFormedS256Challenge(challenge)) return { problem: "challenge" };
  const states = params.getAll("state");
  if (states.length > 1 || (states.length === 1 && !STATE_PATTERN.test(states[0] ?? ""))) {
    return { problem: "state" };
  }
  return { port: Number(port), codeChallenge: challenge, state: states[0] ?? null };
}

/** The start page's own address for these parameters (where sign-in comes back to). */
export function cliStartPath(start: CliStart): string {
  const query = new URLSearchParams({
    port: String(start.port),
    code_challenge: start.codeChallenge,
  });
  if (start.state !== null) query.set("state", start.state);
  return `${CLI_START_PATH}?${query}`;
}

/**
 * Where the browser goes with the code: the program's listener on the IPv4
 * loopback address, always (RFC 8252 §7.3). Nothing else is ever a target.
 */
export function loopbackCallback(port: number, code: string, state: string | null): string {
  const url = new URL(`http://127.0.0.1:${port}/callback`);
  url.searchParams.set("code", code);
  if (state !== null) url.searchParams.set("state", state);
  return url.toString();
}

/**
 * The confirmation form's token: bound to the browser's session and to this
 * very request (port, challenge and state), unforgeable without the server
 * secret. With the Origin check it keeps another site from confirming for
 * the person, or from swapping the port or challenge under their click.
 */
export function cliConfirmToken(user: Pick<SignedInUser, "sessionId">, start: CliStart): string {
  return keyedHash(
    "cli-sign-in-csrf",
    `confirm:${user.sessionId}:${start.port}:${start.codeChallenge}:${start.state ?? ""}`,
  );
}

/** The token of the key setup that a person without a key goes through on the start page. */
export function cliKeyToken(user: Pick<SignedInUser, "sessionId">): string {
  return keyedHash("cli-sign-in-csrf", `key:${user.sessionId}`);
}

const see = (location: string) =>
  new Response(null, {
    status: 303,
    headers: {
      Location: location,
      "Cache-Control": "no-store",
      // The code is in the address: it must not travel on as a referrer.
      "Referrer-Policy": "no-referrer",
    },
  });

/**
 * POST /auth/cli/confirm: the person allowed (or cancelled) the command-line
 * client. Checked in order: Origin (403), the body (400), the parameters
 * (400: never a redirect to anything but the loopback), the session (a
 * signed-out browser goes back to the start page, which signs it in), the
 * token (403), a registered key (back to the start page, which sets one up).
 * Allowed: a one-time code, and the browser goes to the program's listener.
 */
export async function handleCliConfirm(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) {
    return errorJson(403, "csrf", "the request did not come from this service's pages");
  }
  const read = await readFormBody(request);
  if (!read.ok) return errorJson(400, "invalid_request", "the body must be a form");
  const form = read.value;
  const start = parseCliStart(form);
  if ("problem" in start) {
    return errorJson(400, "invalid_request", `the sign-in request's ${start.problem} is not valid`);
  }
  const user = await findSignedInUser(request);
  if (!user) return see(cliStartPath(start));
  if (!timingSafeEqualString(form.get("csrf") ?? "", cliConfirmToken(user, start))) {
    return errorJson(403, "csrf", "the request did not come from this service's pages");
  }
  if (form.get("decision") === "cancel") return see(`${CLI_START_PATH}?cancelled=1`);
  if (!user.publicKey) return see(cliStartPath(start));

  const code = randomToken();
  const now = new Date();
  await db().cliSignIn.create({
    data: {
      codeHash: keyedHash("cli-sign-in-code", code),
      userId: user.userId,
      codeChallenge: start.codeChallenge,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CLI_CODE_LIFETIME_SECONDS * 1000),
    },
  });
  return see(loopbackCallback(start.port, code, start.state));
}

const tokenBodySchema = z.looseObject({ code: z.string(), codeVerifier: z.string() });

const invalidGrant = () => errorJson(400, "invalid_grant", "invalid or expired sign-in code");

type Redeemed =
  | { kind: "issued"; apiKey: string; prefix: string; email: string }
  | { kind: "wrong_verifier" }
  | { kind: "unknown" };

/**
 * POST /auth/cli/token: `{code, codeVerifier}` → `{apiKey, apiBaseUrl, user,
 * prefix}`. The code is consumed by one conditional update whatever the
 * verifier, so a wrong verifier burns it and exactly one of concurrent
 * redemptions wins; the key is issued in the same transaction. A code that
 * is unknown, expired, used or burned answers 400 invalid_grant. A used code
 * presented again with its right verifier is a replay of the program's own
 * exchange (the code was seen somewhere), and the key its first use issued
 * is revoked (RFC 6749 §4.1.2); a wrong verifier alone revokes nothing, so
 * whoever saw only the code cannot end the person's key.
 */
export async function handleCliToken(request: Request): Promise<Response> {
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json")) {
    return errorJson(400, "invalid_request", "the body must be JSON {code, codeVerifier}");
  }
  const read = await readJsonBody(request);
  const parsed = read.ok ? tokenBodySchema.safeParse(read.value) : null;
  if (!parsed?.success || parsed.data.code === "" || parsed.data.codeVerifier === "") {
    return errorJson(400, "invalid_request", "the body must be JSON {code, codeVerifier}");
  }
  const { code, codeVerifier } = parsed.data;
  if (code.length > 200 || codeVerifier.length > 200) return invalidGrant();
  const now = new Date();
  const clientIp = clientIpOf(request);
  const hashes = keyedHashCandidates("cli-sign-in-code", code);

  const redeemed = await db().$transaction(async (tx): Promise<Redeemed> => {
    const [row] = await tx.cliSignIn.updateManyAndReturn({
      where: { codeHash: { in: hashes }, consumedAt: null, expiresAt: { gt: now } },
      data: { consumedAt: now },
    });
    if (!row) return { kind: "unknown" };
    if (!verifiesS256(codeVerifier, row.codeChallenge)) return { kind: "wrong_verifier" };
    const issued = await issuePersonalKey(tx, {
      userId: row.userId,
      client: COMMAND_LINE_CLIENT,
      name: null,
      clientIp,
      now,
    });
    await tx.cliSignIn.update({ where: { id: row.id }, data: { apiKeyId: issued.id } });
    return { kind: "issued", apiKey: issued.apiKey, prefix: issued.prefix, email: issued.email };
  });

  if (redeemed.kind !== "issued") {
    if (redeemed.kind === "unknown") await revokeReplayedKey(hashes, codeVerifier, now, clientIp);
    return invalidGrant();
  }
  return privateJson({
    apiKey: redeemed.apiKey,
    apiBaseUrl: getEnv().issuer,
    user: redeemed.email,
    prefix: redeemed.prefix,
  });
}

/** A used code presented again with its right verifier: its key is revoked, with its event. */
async function revokeReplayedKey(
  hashes: string[],
  codeVerifier: string,
  now: Date,
  clientIp: string | null,
): Promise<void> {
  await db().$transaction(async (tx) => {
    const used = await tx.cliSignIn.findFirst({
      where: { codeHash: { in: hashes }, consumedAt: { not: null } },
      select: { codeChallenge: true, apiKeyId: true },
    });
    if (!used?.apiKeyId || !verifiesS256(codeVerifier, used.codeChallenge)) return;
    const revoked = await tx.apiKey.updateManyAndReturn({
      where: { id: used.apiKeyId, revokedAt: null },
      data: { revokedAt: now },
      select: { prefix: true, clientId: true, tenant: { select: { userId: true } } },
    });
    for (const key of revoked) {
      log.warn("cli_sign_in.code_replayed", { prefix: key.prefix });
      await recordKeyRevoked(tx, {
        clientId: key.clientId,
        partnerId: null,
        userId: key.tenant.userId,
        prefix: key.prefix,
        clientIp,
        at: now,
        reason: "code_replay",
      });
    }
  });
}

const keyBodySchema = z.looseObject({ csrf: z.string(), publicKey: z.string() });

/**
 * POST /auth/cli/key `{csrf, publicKey}`: a person without a key sets one up
 * on the start page before the program can read anything (the same steps as
 * the flow's key setup: made in the browser, its passphrase backup saved and
 * confirmed, then only the public half sent). Same origin, signed in, the
 * page's token; a key is registered once and never replaced here: another
 * key than the registered one answers 409 key_mismatch.
 */
export async function handleCliKey(request: Request): Promise<Response> {
  if (!isSameOrigin(request)) {
    return errorJson(403, "csrf", "the request did not come from this service's pages");
  }
  const user = await findSignedInUser(request);
  if (!user) return errorJson(401, "login_required", "sign in first");
  const read = await readJsonBody(request);
  const parsed = read.ok ? keyBodySchema.safeParse(read.value) : null;
  if (!parsed?.success) return errorJson(400, "invalid_request", "the body is not valid");
  if (!timingSafeEqualString(parsed.data.csrf, cliKeyToken(user))) {
    return errorJson(403, "csrf", "the request did not come from this service's pages");
  }
  const publicKey = parsed.data.publicKey;
  try {
    parseRawPublicKey(publicKey);
  } catch {
    return errorJson(400, "invalid_key", "the public key is not a P-256 point");
  }
  const now = new Date();
  await db().$transaction(async (tx) => {
    // Conditional: two tabs registering at once cannot overwrite each other.
    const registered = await tx.user.updateMany({
      where: { id: user.userId, publicKey: null },
      data: { publicKey, publicKeyAt: now, keyBackupAt: now },
    });
    if (registered.count === 1) await dropOtherWrappedKeys(tx, user.userId, publicKey);
  });
  const stored = await db().user.findUniqueOrThrow({
    where: { id: user.userId },
    select: { publicKey: true },
  });
  if (stored.publicKey !== publicKey) {
    return errorJson(409, "key_mismatch", "another key is registered for this account");
  }
  return privateJson({ registered: true });
}
