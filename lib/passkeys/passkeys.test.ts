import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as removePasskeyRoute from "../../app/(flow)/account/passkeys/[id]/route";
import * as passkeyKeyRoute from "../../app/(flow)/account/passkeys/[id]/key/route";
import * as listPasskeysRoute from "../../app/(flow)/account/passkeys/route";
import * as startOverAtAccount from "../../app/(flow)/account/key/start-over/route";
import * as loginContinue from "../../app/(flow)/login/continue/route";
import * as registerOptionsRoute from "../../app/(flow)/passkeys/register/options/route";
import * as registerRoute from "../../app/(flow)/passkeys/register/route";
import * as signInOptionsRoute from "../../app/(flow)/passkeys/sign-in/options/route";
import * as signInRoute from "../../app/(flow)/passkeys/sign-in/route";
import * as setupKey from "../../app/(flow)/setup/key/route";
import * as startOverInFlow from "../../app/(flow)/setup/start-over/route";
import { accountCsrfToken } from "../account/session";
import {
  findSessionUser,
  isFreshSignIn,
  sessionCookieName,
  type SignedInUser,
} from "../auth/sessions";
import { PASSKEY_LIMITS } from "../auth/sign-in-limits";
import { tenantSubject } from "../banking/tenants";
import { generateKeyPair } from "../crypto/envelope";
import { keyedHash } from "../crypto/keyed-hash";
import { db } from "../db/client";
import { CONTINUE_PATH } from "../flow/continue";
import { csrfToken } from "../flow/csrf";
import { attachUser } from "../flow/flows";
import { serializePasskeyWrappedKey, wrapKeyWithPasskey } from "../keys/passkey-key";
import { SoftwareAuthenticator } from "../../test/passkey-authenticator";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  signedInCookie,
  startTestFlow,
} from "../../test/oauth-fixtures";
import { startRouteServer, type RouteServer } from "../../test/route-server";
import { uniqueClientIp } from "../../test/sign-in-fixtures";
import deMessages from "../../messages/de.json";
import { formatDateTime } from "../i18n/date-time";
import { locales } from "../i18n/locales";
import { loadMessages } from "../i18n/messages";
import { PASSKEY_PRF_INPUT } from "./prf";
import type { PasskeyCreationOptions } from "./registration";
import type { PasskeyRequestOptions } from "./authentication";

/**
 * Passkeys end to end over HTTP (docs/sessions.md#passkeys): a software
 * authenticator registers and signs in against the routes as the service
 * serves them, with the real database; each check a sign-in must pass is
 * shown to refuse an answer that fails it.
 */

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({
    "/passkeys/sign-in/options": signInOptionsRoute,
    "/passkeys/sign-in": signInRoute,
    "/passkeys/register/options": registerOptionsRoute,
    "/passkeys/register": registerRoute,
    "/account/passkeys": listPasskeysRoute,
    "/account/passkeys/[id]": removePasskeyRoute,
    "/account/passkeys/[id]/key": passkeyKeyRoute,
    "/account/key/start-over": startOverAtAccount,
    "/setup/key": setupKey,
    "/setup/start-over": startOverInFlow,
    [CONTINUE_PATH]: loginContinue,
  });
});
afterAll(() => server.close());

interface Browser {
  /** The Cookie header: what this browser holds. */
  cookie: string;
  /** Its client address. */
  ip: string;
}

const newBrowser = (cookie = ""): Browser => ({ cookie, ip: uniqueClientIp() });

async function send(
  method: string,
  path: string,
  browser: Browser,
  body?: unknown,
  origin: string | null = ISSUER,
): Promise<Response> {
  const headers: Record<string, string> = { "X-Forwarded-For": browser.ip };
  if (browser.cookie) headers.Cookie = browser.cookie;
  if (origin) headers.Origin = origin;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  return fetch(`${server.origin}${path}`, {
    method,
    redirect: "manual",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const post = (path: string, browser: Browser, body: unknown = {}, origin?: string | null) =>
  send("POST", path, browser, body, origin);

const cookieToken = (cookie: string) => cookie.slice(cookie.indexOf("=") + 1);
const sessionOf = async (cookie: string) =>
  (await findSessionUser(cookieToken(cookie))) as SignedInUser;

/** The session cookie a response set, as a Cookie header pair; null when it set none. */
function sessionSet(response: Response): string | null {
  const set = response.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith(`${sessionCookieName()}=`));
  return set ? (set.split(";")[0] ?? null) : null;
}

async function ageSession(cookie: string, seconds: number) {
  await db().browserSession.update({
    where: { idHash: keyedHash("browser-session", cookieToken(cookie)) },
    data: { createdAt: new Date(Date.now() - seconds * 1000) },
  });
}

/** A person with a registered key, signed in (freshly) in a browser of their own. */
async function person(options: { key?: boolean } = {}) {
  const user = await createTestUser();
  const keys = generateKeyPair();
  if (options.key !== false) {
    await db().user.update({
      where: { id: user.id },
      data: { publicKey: keys.publicKeyRawB64, publicKeyAt: new Date() },
    });
  }
  const browser = newBrowser(await signedInCookie(user.id));
  const session = await sessionOf(browser.cookie);
  return {
    user,
    keys,
    browser,
    session,
    addToken: accountCsrfToken(session, "add-passkey"),
    removeToken: accountCsrfToken(session, "remove-passkey"),
  };
}
type Person = Awaited<ReturnType<typeof person>>;

/** The key wrapped as the browser wraps it, with a PRF output standing for the passkey's. */
async function wrappedKeyOf(keys: { privateKeyPkcs8B64: string; publicKeyRawB64: string }) {
  const prfOutput = crypto.getRandomValues(new Uint8Array(32));
  return serializePasskeyWrappedKey(
    await wrapKeyWithPasskey(
      { privateKey: keys.privateKeyPkcs8B64, publicKey: keys.publicKeyRawB64 },
      prfOutput,
    ),
  );
}

async function registerOptions(alice: Person, csrf = alice.addToken) {
  const response = await post("/passkeys/register/options", alice.browser, { csrf });
  expect(response.status).toBe(200);
  return (await response.json()) as { challengeId: string; options: PasskeyCreationOptions };
}

/** Registers a new passkey of `authenticator` for `alice`; answers the registration's response. */
async function register(
  alice: Person,
  authenticator: SoftwareAuthenticator,
  extra: Record<string, unknown> = {},
  csrf = alice.addToken,
) {
  const { challengeId, options } = await registerOptions(alice, csrf);
  const response = authenticator.create(options);
  return post("/passkeys/register", alice.browser, {
    csrf,
    challengeId,
    response,
    name: "Test passkey",
    ...extra,
  });
}

async function registered(
  alice: Person,
  authenticator: SoftwareAuthenticator,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const response = await register(alice, authenticator, extra);
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function signInOptions(browser: Browser) {
  const response = await post("/passkeys/sign-in/options", browser, {});
  expect(response.status).toBe(200);
  return (await response.json()) as { challengeId: string; options: PasskeyRequestOptions };
}

type AssertionBent = Parameters<SoftwareAuthenticator["get"]>[1];

/** One tap: options, the authenticator's answer, the sign-in post. */
async function signIn(
  authenticator: SoftwareAuthenticator,
  browser: Browser = newBrowser(),
  bent: AssertionBent = {},
  extra: Record<string, unknown> = {},
) {
  const { challengeId, options } = await signInOptions(browser);
  const response = authenticator.get(options, bent);
  const answer = await post("/passkeys/sign-in", browser, { challengeId, response, ...extra });
  return { answer, challengeId, response };
}

const refusalOf = async (answer: Response) => {
  expect(answer.status).toBe(400);
  expect(sessionSet(answer)).toBeNull();
  return ((await answer.json()) as { error: string }).error;
};

async function refusalReasons(userId: string): Promise<string[]> {
  const events = await db().auditEvent.findMany({
    where: { userId, type: "passkey.refused" },
    orderBy: { seq: "asc" },
  });
  return events.map((event) => (event.details as { reason: string }).reason);
}

const newAuthenticator = (options: { synced?: boolean } = {}) =>
  new SoftwareAuthenticator(ISSUER, options);

describe("passkey options", () => {
  it("name the service as relying party, ask for user verification and a discoverable passkey, and carry the PRF input", async () => {
    const alice = await person();
    const { options: creation } = await registerOptions(alice);
    expect(creation.rp).toEqual({ id: "localhost", name: "Bank Connect" });
    expect(creation.user.name).toBe(alice.user.email);
    expect(Buffer.from(creation.user.id, "base64url").toString("hex")).toBe(
      alice.user.id.replace(/-/g, ""),
    );
    expect(creation.authenticatorSelection).toMatchObject({
      residentKey: "required",
      requireResidentKey: true,
      userVerification: "required",
    });
    expect(creation.attestation).toBe("none");
    const prf = Buffer.from(PASSKEY_PRF_INPUT).toString("base64url");
    expect(creation.extensions).toEqual({ prf: { eval: { first: prf } } });

    const { options: request } = await signInOptions(newBrowser());
    expect(request.rpId).toBe("localhost");
    expect(request.userVerification).toBe("required");
    expect(request.allowCredentials).toEqual([]);
    expect(request.extensions).toEqual({ prf: { eval: { first: prf } } });
  });

  it("a second passkey's options exclude the ones the person has", async () => {
    const alice = await person();
    const authenticator = newAuthenticator();
    await registered(alice, authenticator);
    const { options } = await registerOptions(alice);
    expect(options.excludeCredentials?.map((credential) => credential.id)).toEqual([
      authenticator.credentialId,
    ]);
  });
});

describe("passkey sign-in", () => {
  it("a registered passkey signs its person in with a fresh session, hands over the key it holds, and records the use", async () => {
    const alice = await person();
    const authenticator = newAuthenticator();
    const wrappedKey = await wrappedKeyOf(alice.keys);
    await registered(alice, authenticator, { wrappedKey });

    const browser = newBrowser();
    const { answer } = await signIn(authenticator, browser);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toContain("no-store");
    expect(await answer.json()).toEqual({
      next: "/",
      userId: alice.user.id,
      email: alice.user.email,
      wrappedKey,
    });
    const cookie = sessionSet(answer);
    expect(cookie).not.toBeNull();
    const session = await sessionOf(cookie ?? "");
    expect(session.userId).toBe(alice.user.id);
    expect(isFreshSignIn(session)).toBe(true);

    const stored = await db().passkey.findFirstOrThrow({ where: { userId: alice.user.id } });
    expect(stored).toMatchObject({ counter: 2, deviceType: "singleDevice", backedUp: false });
    expect(stored.lastUsedAt).not.toBeNull();
    const events = await db().auditEvent.findMany({
      where: { userId: alice.user.id, type: { startsWith: "passkey." } },
      orderBy: { seq: "asc" },
    });
    expect(events.map((event) => [event.type, event.details, event.subject])).toEqual([
      ["passkey.added", { synced: false, holdsKey: true }, null],
      ["passkey.used", { inFlow: false, synced: false, keyServed: true }, null],
    ]);
  });

  it("a synced passkey keeps its counter at 0 and signs in again and again; its backup state is recorded", async () => {
    const alice = await person();
    const authenticator = newAuthenticator({ synced: true });
    await registered(alice, authenticator);
    for (let tap = 0; tap < 2; tap += 1) {
      const { answer } = await signIn(authenticator);
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { wrappedKey: unknown }).wrappedKey).toBeNull();
    }
    const stored = await db().passkey.findFirstOrThrow({ where: { userId: alice.user.id } });
    expect(stored).toMatchObject({ counter: 0, deviceType: "multiDevice", backedUp: true });
  });

  it("a browser signed in as someone else is signed in as the passkey's person, its old session revoked", async () => {
    const alice = await person();
    const bob = await person();
    const authenticator = newAuthenticator();
    await registered(alice, authenticator);
    const { answer } = await signIn(authenticator, { ...bob.browser });
    expect(answer.status).toBe(200);
    expect((await sessionOf(sessionSet(answer) ?? "")).userId).toBe(alice.user.id);
    expect(await findSessionUser(cookieToken(bob.browser.cookie))).toBeNull();
  });

  it("a passkey of another account than the address the page holds signs nobody in and names its account; the same address, or none, signs in", async () => {
    const alice = await person();
    const bob = await person();
    const authenticator = newAuthenticator();
    const wrappedKey = await wrappedKeyOf(alice.keys);
    await registered(alice, authenticator, { wrappedKey });

    const browser = { ...bob.browser };
    const other = await signIn(authenticator, browser, {}, { expectEmail: bob.user.email });
    expect(other.answer.status).toBe(409);
    expect(sessionSet(other.answer)).toBeNull();
    // Nothing of the key, no session: only whose passkey it is.
    expect(await other.answer.json()).toEqual({ error: "other_account", email: alice.user.email });
    expect((await findSessionUser(cookieToken(bob.browser.cookie)))?.userId).toBe(bob.user.id);

    // The same address however typed, an unfinished one, or none: the passkey signs in.
    for (const expectEmail of [` ${alice.user.email.toUpperCase()} `, "ali", undefined]) {
      const { answer } = await signIn(authenticator, newBrowser(), {}, { expectEmail });
      expect(answer.status).toBe(200);
      expect(sessionSet(answer)).not.toBeNull();
    }
  });

  it("answers where to go next as the mail sign-in does: the return path, the live flow, or the ended flow's screen", async () => {
    const alice = await person();
    const authenticator = newAuthenticator();
    await registered(alice, authenticator);
    const nextOf = async (browser: Browser, extra: Record<string, unknown>) => {
      const { answer } = await signIn(authenticator, browser, {}, extra);
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { next: string }).next;
    };
    expect(await nextOf(newBrowser(), { returnUrl: "/account?from=x" })).toBe("/account?from=x");
    expect(await nextOf(newBrowser(), { returnUrl: "https://evil.example/" })).toBe("/");
    const client = await createTestClient();
    const { flowId, setCookie } = await startTestFlow(client);
    const inFlow = newBrowser(setCookie.split(";")[0]);
    expect(await nextOf(inFlow, { flowId })).toBe(CONTINUE_PATH);
    expect(await nextOf(newBrowser(), { flowId })).toBe("/error?reason=expired");
    const used = await db().auditEvent.findMany({
      where: { userId: alice.user.id, type: "passkey.used" },
      orderBy: { seq: "asc" },
    });
    expect(used.map((event) => (event.details as { inFlow: boolean }).inFlow)).toEqual([
      false,
      false,
      true,
      false,
    ]);
  });

  it("refuses an answer made on another origin", async () => {
    const alice = await person();
    const authenticator = newAuthenticator();
    await registered(alice, authenticator);
    const { answer } = await signIn(authenticator, newBrowser(), {
      origin: "https://bank-connect.example.net",
    });
    expect(await refusalOf(answer)).toBe("passkey_invalid");
    expect(await refusalReasons(alice.user.id)).toEqual(["wrong_origin"]);
    // The post itself from another site is refused before anything is read.
    const { challengeId, options } = await signInOptions(newBrowser());
    const crossSite = await post(
      "/passkeys/sign-in",
      newBrowser(),
      { challengeId, response: authenticator.get(options) },
      "https://evil.example",
    );
    expect(crossSite.status).toBe(403);
    expect(sessionSet(crossSite)).toBeNull();
  });

  it("refuses an answer for another relying-party id", async () => {
    const alice = await person();
    const authenticator = newAuthenticator();
    await registered(alice, authenticator);
    const { answer } = await signIn(authenticator, newBrowser(), { rpId: "evil.example" });
    expect(await refusalOf(answer)).toBe("passkey_invalid");
    expect(await refusalReasons(alice.user.id)).toEqual(["wrong_rp_id"]);
  });

  it("refuses an answer without user verification", async () => {
    const alice = await person();
    const authenticator = newAuthenticator();
    await registered(alice, authenticator);
    const { answer } = await signIn(authenticator, newBrowser(), { userVerified: false });
    expect(await refusalOf(answer)).toBe("passkey_invalid");
    expect(await refusalReasons(alice.user.id)).toEqual(["no_user_verification"]);
  });

  it("refuses a replayed challenge: an answer counts once, and never for another challenge", async () => {
    const alice = await person();
    const authenticator = newAuthenticator({ synced: true });
    await registered(alice, authenticator);
    const { answer, challengeId, response } = await signIn(authenticator);
    expect(answer.status).toBe(200);

    const again = await post("/passkeys/sign-in", newBrowser(), { challengeId, response });
    expect(await refusalOf(again)).toBe("challenge_expired");
    // Sent with a challenge of its own, the old answer is signed over the old challenge.
    const { challengeId: fresh } = await signInOptions(newBrowser());
    const replayed = await post("/passkeys/sign-in", newBrowser(), {
      challengeId: fresh,
      response,
    });
    expect(await refusalOf(replayed)).toBe("challenge_expired");
    expect(await refusalReasons(alice.user.id)).toEqual(["challenge_expired"]);
  });

  it("refuses an expired challenge, and a registration's challenge", async () => {
    const alice = await person();
    const authenticator = newAuthenticator();
    await registered(alice, authenticator);
    const browser = newBrowser();
    const { challengeId, options } = await signInOptions(browser);
    await db().passkeyChallenge.update({
      where: { id: challengeId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const expired = await post("/passkeys/sign-in", browser, {
      challengeId,
      response: authenticator.get(options),
    });
    expect(await refusalOf(expired)).toBe("challenge_expired");
    // An expired challenge is gone once tried.
    expect(await db().passkeyChallenge.count({ where: { id: challengeId } })).toBe(0);

    const registration = await registerOptions(alice);
    const crossed = await post("/passkeys/sign-in", browser, {
      challengeId: registration.challengeId,
      response: authenticator.get({ ...options, challenge: registration.options.challenge }),
    });
    expect(await refusalOf(crossed)).toBe("challenge_expired");
  });

  it("refuses a signature counter that goes back", async () => {
    const alice = await person();
    const authenticator = newAuthenticator();
    await registered(alice, authenticator);
    expect((await signIn(authenticator, newBrowser(), { counter: 5 })).answer.status).toBe(200);
    for (const counter of [5, 3, 0]) {
      const { answer } = await signIn(authenticator, newBrowser(), { counter });
      expect(await refusalOf(answer)).toBe("counter_replayed");
    }
    const stored = await db().passkey.findFirstOrThrow({ where: { userId: alice.user.id } });
    expect(stored.counter).toBe(5);
    expect(await refusalReasons(alice.user.id)).toEqual([
      "counter_replayed",
      "counter_replayed",
      "counter_replayed",
    ]);
    expect((await signIn(authenticator, newBrowser(), { counter: 6 })).answer.status).toBe(200);
    // Beyond what the service counts: refused, never an error.
    const { answer } = await signIn(authenticator, newBrowser(), { counter: 2 ** 32 - 1 });
    expect(await refusalOf(answer)).toBe("passkey_invalid");
  });

  it("refuses an unknown credential, and one that was removed", async () => {
    const stranger = newAuthenticator();
    stranger.create((await registerOptions(await person())).options);
    const { answer } = await signIn(stranger);
    expect(await refusalOf(answer)).toBe("passkey_unknown");

    const alice = await person();
    const authenticator = newAuthenticator();
    const id = await registered(alice, authenticator);
    const removed = await send("DELETE", `/account/passkeys/${id}`, alice.browser, {
      csrf: alice.removeToken,
    });
    expect(removed.status).toBe(200);
    expect(await refusalOf((await signIn(authenticator)).answer)).toBe("passkey_unknown");
  });

  it("refuses an answer whose signature does not verify", async () => {
    const alice = await person();
    const authenticator = newAuthenticator();
    await registered(alice, authenticator);
    const browser = newBrowser();
    const { challengeId, options } = await signInOptions(browser);
    const response = authenticator.get(options);
    const authData = Buffer.from(response.response.authenticatorData, "base64url");
    authData.writeUInt8(authData.readUInt8(authData.length - 1) ^ 0x01, authData.length - 1);
    const forged = {
      ...response,
      response: { ...response.response, authenticatorData: authData.toString("base64url") },
    };
    const answer = await post("/passkeys/sign-in", browser, { challengeId, response: forged });
    expect(await refusalOf(answer)).toBe("passkey_invalid");
    expect(await refusalReasons(alice.user.id)).toEqual(["bad_signature"]);
  });

  it("limits passkey sign-ins per client address, like the sign-in mails", async () => {
    // The limits count per fixed minute: start the requests early in one, so that they all
    // fall inside it even on a slow machine.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 30_000)
      await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
    const browser = newBrowser();
    const limit = PASSKEY_LIMITS["passkey-options-client"].limit;
    for (let request = 0; request < limit; request += 1) {
      expect((await post("/passkeys/sign-in/options", browser)).status).toBe(200);
    }
    const refused = await post("/passkeys/sign-in/options", browser);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await refused.json()) as { error: string }).error).toBe("throttled");
    // Another client address is not held back.
    expect((await post("/passkeys/sign-in/options", newBrowser())).status).toBe(200);

    const answers = newBrowser();
    const signInLimit = PASSKEY_LIMITS["passkey-sign-in-client"].limit;
    for (let request = 0; request < signInLimit; request += 1) {
      expect((await post("/passkeys/sign-in", answers, { challengeId: "x" })).status).toBe(400);
    }
    expect((await post("/passkeys/sign-in", answers, { challengeId: "x" })).status).toBe(429);
  }, 90_000);

  it("writes no credential id, public key, wrapped key or ceremony data to the log", async () => {
    const out = vi.spyOn(process.stdout, "write");
    const err = vi.spyOn(process.stderr, "write");
    try {
      const alice = await person();
      const authenticator = newAuthenticator();
      const wrappedKey = await wrappedKeyOf(alice.keys);
      const id = await registered(alice, authenticator, { wrappedKey });
      const { response } = await signIn(authenticator);
      await signIn(authenticator, newBrowser(), { origin: "https://evil.example" });
      await signIn(authenticator, newBrowser(), { counter: 0 });
      await send("GET", "/account/passkeys", alice.browser);
      await db().user.update({ where: { id: alice.user.id }, data: { keyBackupAt: new Date() } });
      const { publicKey } = await db().passkey.findUniqueOrThrow({ where: { id } });
      await send("DELETE", `/account/passkeys/${id}`, alice.browser, { csrf: alice.removeToken });
      expect(await db().passkey.count({ where: { userId: alice.user.id } })).toBe(0);
      const written = [...out.mock.calls, ...err.mock.calls].map(([chunk]) => String(chunk));
      // The refusals were logged, by reason.
      expect(written.filter((line) => line.includes('"passkey.sign_in_refused"'))).toHaveLength(2);
      expect(written.join("")).toContain('"reason":"wrong_origin"');
      const secrets = [
        authenticator.credentialId,
        publicKey,
        JSON.parse(wrappedKey).ciphertext as string,
        response.response.signature,
        response.response.clientDataJSON,
        response.response.authenticatorData,
      ];
      for (const secret of secrets) {
        expect(written.filter((line) => line.includes(secret))).toEqual([]);
      }
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
});

describe("registering a passkey", () => {
  it("needs the signed-in person, this service's origin and the add-passkey token", async () => {
    const alice = await person();
    const cases: [string, Promise<Response>, number, string][] = [
      [
        "nobody signed in",
        post("/passkeys/register/options", newBrowser(), {}),
        401,
        "login_required",
      ],
      [
        "another site",
        post(
          "/passkeys/register/options",
          alice.browser,
          { csrf: alice.addToken },
          "https://evil.example",
        ),
        403,
        "csrf",
      ],
      ["no token", post("/passkeys/register/options", alice.browser, {}), 403, "csrf"],
      [
        "another action's token",
        post("/passkeys/register/options", alice.browser, { csrf: alice.removeToken }),
        403,
        "csrf",
      ],
    ];
    for (const [label, sent, status, error] of cases) {
      const response = await sent;
      expect(response.status, label).toBe(status);
      expect(((await response.json()) as { error: string }).error, label).toBe(error);
    }
    expect(await db().passkeyChallenge.count({ where: { userId: alice.user.id } })).toBe(0);
  });

  it("inside a flow, the flow's key-setup token of the same person counts too", async () => {
    const alice = await person({ key: false });
    const client = await createTestClient();
    const { flowId, setCookie } = await startTestFlow(client);
    await attachUser(
      { id: flowId, renewConnectionId: null },
      { id: alice.user.id, publicKey: null },
      "user",
      tenantSubject(client.partnerId, alice.user),
    );
    const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
    const token = csrfToken(flow, "key-setup");
    // Without the flow's cookie, the token is nobody's.
    expect((await post("/passkeys/register/options", alice.browser, { csrf: token })).status).toBe(
      403,
    );
    alice.browser.cookie += `; ${setCookie.split(";")[0]}`;
    const response = await register(alice, newAuthenticator(), {}, token);
    expect(response.status).toBe(201);
    // Another flow action's token does not.
    const other = await post("/passkeys/register/options", alice.browser, {
      csrf: csrfToken(flow, "approve"),
    });
    expect(other.status).toBe(403);
  });

  it("a stale session signs in again first, back to the page it came from", async () => {
    const alice = await person();
    await ageSession(alice.browser.cookie, 6 * 86_400);
    for (const path of ["/passkeys/register/options", "/passkeys/register"]) {
      const response = await post(path, alice.browser, { csrf: alice.addToken });
      expect(response.status).toBe(401);
      const answer = (await response.json()) as { error: string; location: string };
      expect(answer.error).toBe("reauth_required");
      const location = new URL(answer.location, ISSUER);
      expect(Object.fromEntries(location.searchParams)).toEqual({
        email: alice.user.email,
        reconfirm: "change",
        returnUrl: "/account",
      });
    }
    expect(await db().passkey.count({ where: { userId: alice.user.id } })).toBe(0);
  });

  it("refuses a creation made on another origin, for another rp id, or without user verification", async () => {
    const alice = await person();
    for (const bent of [
      { origin: "https://evil.example" },
      { rpId: "evil.example" },
      { userVerified: false },
    ]) {
      const { challengeId, options } = await registerOptions(alice);
      const response = newAuthenticator().create(options, bent);
      const answer = await post("/passkeys/register", alice.browser, {
        csrf: alice.addToken,
        challengeId,
        response,
      });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({ error: "passkey_invalid" });
    }
    expect(await db().passkey.count({ where: { userId: alice.user.id } })).toBe(0);
  });

  it("takes only its own person's challenge, once", async () => {
    const alice = await person();
    const bob = await person();
    const { challengeId, options } = await registerOptions(bob);
    const stolen = await post("/passkeys/register", alice.browser, {
      csrf: alice.addToken,
      challengeId,
      response: newAuthenticator().create(options),
    });
    expect(await stolen.json()).toEqual({ error: "challenge_expired" });

    const own = await registerOptions(alice);
    const response = newAuthenticator().create(own.options);
    const body = { csrf: alice.addToken, challengeId: own.challengeId, response };
    expect((await post("/passkeys/register", alice.browser, body)).status).toBe(201);
    const again = await post("/passkeys/register", alice.browser, body);
    expect(await again.json()).toEqual({ error: "challenge_expired" });
  });

  it("keeps a wrapped key only when it wraps the registered key", async () => {
    const alice = await person();
    const other = await wrappedKeyOf(generateKeyPair());
    const mismatch = await register(alice, newAuthenticator(), { wrappedKey: other });
    expect(mismatch.status).toBe(409);
    expect(await mismatch.json()).toEqual({ error: "key_mismatch" });
    const damaged = await register(alice, newAuthenticator(), {
      wrappedKey: '{"version":1,"publicKey":"x"}',
    });
    expect(damaged.status).toBe(400);
    expect(await damaged.json()).toEqual({ error: "invalid_wrapped_key" });
    const tooLong = await register(alice, newAuthenticator(), { name: "n".repeat(65) });
    expect(tooLong.status).toBe(400);
    expect(await db().passkey.count({ where: { userId: alice.user.id } })).toBe(0);

    // As an object or as JSON text, stored as the same JSON text.
    const wrappedKey = await wrappedKeyOf(alice.keys);
    const held = await register(alice, newAuthenticator(), { wrappedKey: JSON.parse(wrappedKey) });
    expect(held.status).toBe(201);
    expect(((await held.json()) as { holdsKey: boolean }).holdsKey).toBe(true);
    const stored = await db().passkey.findFirstOrThrow({ where: { userId: alice.user.id } });
    expect(stored.wrappedKey).toBe(wrappedKey);
    expect(stored.name).toBe("Test passkey");
  });

  it("mails the person, in their language, which passkey was added, when, and where to remove it", async () => {
    const alice = await person();
    await db().user.update({ where: { id: alice.user.id }, data: { locale: "de" } });
    const mailsToAlice = () =>
      db().outboxMessage.findMany({ where: { to: alice.user.email }, orderBy: { sentAt: "asc" } });

    // A refused registration mails nothing.
    const refused = await register(alice, newAuthenticator(), { name: "n".repeat(65) });
    expect(refused.status).toBe(400);
    expect(await mailsToAlice()).toHaveLength(0);

    const name = 'Pixel <b>"7"</b> & Chrome';
    const id = await registered(alice, newAuthenticator(), { name });
    const stored = await db().passkey.findUniqueOrThrow({ where: { id } });
    const mails = await mailsToAlice();
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    const german = deMessages.Mail.passkeyAdded;
    expect(mail?.subject).toBe(german.subject.replace("{service}", "Bank Connect"));
    expect(mail?.code).toBeNull();
    expect(mail?.link).toBeNull();
    const at = formatDateTime("de", stored.createdAt, "UTC");
    expect(at).toMatch(/UTC/);
    const intro = german.intro
      .replace("{name}", name)
      .replace("{at}", at)
      .replace("{service}", "Bank Connect");
    expect(mail?.text).toContain(intro);
    expect(mail?.text).toContain(german.notYou);
    expect(mail?.text).toContain(`${ISSUER}/account`);
    // The name is the person's own text: escaped in the HTML part, never markup.
    expect(mail?.html).toContain("Pixel &lt;b&gt;&quot;7&quot;&lt;/b&gt; &amp; Chrome");
    expect(mail?.html).not.toContain("<b>");
    expect(mail?.html).toContain(`href="${ISSUER}/account"`);
    expect(mail?.html).toContain('lang="de"');
    // The mail says nothing of the passkey's credential or key.
    expect(mail?.text).not.toContain(stored.credentialId);
  });

  it("the passkey mail is written in each of the 12 languages", async () => {
    const subjects = new Set<string>();
    for (const locale of locales) {
      const alice = await person();
      await db().user.update({ where: { id: alice.user.id }, data: { locale } });
      await registered(alice, newAuthenticator());
      const [mail] = await db().outboxMessage.findMany({ where: { to: alice.user.email } });
      const messages = (await loadMessages(locale)) as unknown as typeof deMessages;
      expect(mail?.subject, locale).toBe(
        messages.Mail.passkeyAdded.subject.replace("{service}", "Bank Connect"),
      );
      expect(mail?.html, locale).toContain(`lang="${locale}"`);
      expect(mail?.text, locale).toContain("Test passkey");
      subjects.add(mail?.subject ?? "");
    }
    expect(subjects.size).toBe(locales.length);
  });
});

describe("passkeys on My access", () => {
  const list = async (alice: Person) => {
    const response = await send("GET", "/account/passkeys", alice.browser);
    expect(response.status).toBe(200);
    return (await response.json()) as {
      id: string;
      name: string;
      synced: boolean;
      holdsKey: boolean;
      removable: boolean;
      createdAt: string;
      lastUsedAt: string | null;
    }[];
  };
  const remove = (alice: Person, id: string, browser = alice.browser) =>
    send("DELETE", `/account/passkeys/${id}`, browser, { csrf: alice.removeToken });

  it("lists the person's own passkeys, newest first: synced or not, holding the key or not", async () => {
    const alice = await person();
    const bob = await person();
    await registered(bob, newAuthenticator());
    const first = await registered(alice, newAuthenticator({ synced: true }), {
      wrappedKey: await wrappedKeyOf(alice.keys),
      name: "iPhone · Safari",
    });
    const second = await registered(alice, newAuthenticator(), { name: "  " });
    const listed = await list(alice);
    expect(
      listed.map(({ id, name, synced, holdsKey, removable, lastUsedAt }) => ({
        id,
        name,
        synced,
        holdsKey,
        removable,
        lastUsedAt,
      })),
    ).toEqual([
      {
        id: second,
        name: "Passkey",
        synced: false,
        holdsKey: false,
        removable: true,
        lastUsedAt: null,
      },
      // The only holder of the key; the migration's backup mark is not set for this person.
      {
        id: first,
        name: "iPhone · Safari",
        synced: true,
        holdsKey: true,
        removable: false,
        lastUsedAt: null,
      },
    ]);
    expect(Date.parse(listed[0]?.createdAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
    expect((await send("GET", "/account/passkeys", newBrowser())).status).toBe(401);
  });

  it("refuses to remove another person's passkey, answering as for one that does not exist", async () => {
    const alice = await person();
    const bob = await person();
    const bobs = await registered(bob, newAuthenticator());
    const response = await remove(alice, bobs);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: string }).error).toBe("not_found");
    expect(await db().passkey.count({ where: { id: bobs } })).toBe(1);
    expect((await remove(alice, "not-a-uuid")).status).toBe(404);
    // Nor give it a key.
    const put = await send("PUT", `/account/passkeys/${bobs}/key`, alice.browser, {
      csrf: alice.addToken,
      wrappedKey: await wrappedKeyOf(alice.keys),
    });
    expect(put.status).toBe(404);
    expect((await db().passkey.findUniqueOrThrow({ where: { id: bobs } })).wrappedKey).toBeNull();
  });

  it("a passkey id in the path that is not valid percent-encoding is a passkey that does not exist", async () => {
    const alice = await person();
    await registered(alice, newAuthenticator());
    for (const id of ["%zz", "%E2%82", "a%"]) {
      const removed = await remove(alice, id);
      expect(removed.status, id).toBe(404);
      expect(await removed.json(), id).toEqual({
        error: "not_found",
        error_description: "no such passkey",
      });
      const put = await send("PUT", `/account/passkeys/${id}/key`, alice.browser, {
        csrf: alice.addToken,
        wrappedKey: await wrappedKeyOf(alice.keys),
      });
      expect(put.status, id).toBe(404);
    }
    expect(await db().passkey.count({ where: { userId: alice.user.id } })).toBe(1);
  });

  it("never removes the last holder of the key while no backup of it was confirmed", async () => {
    const alice = await person();
    const wrappedKey = await wrappedKeyOf(alice.keys);
    const holder = await registered(alice, newAuthenticator(), { wrappedKey });
    const signInOnly = await registered(alice, newAuthenticator());
    const refused = await remove(alice, holder);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toBe("last_key_holder");
    expect(await db().passkey.count({ where: { id: holder } })).toBe(1);
    // A passkey that holds nothing goes.
    expect((await remove(alice, signInOnly)).status).toBe(200);

    // A second holder is another way back.
    const second = await registered(alice, newAuthenticator(), { wrappedKey });
    expect((await remove(alice, holder)).status).toBe(200);
    expect((await remove(alice, second)).status).toBe(409);
    // So is a confirmed backup.
    await db().user.update({ where: { id: alice.user.id }, data: { keyBackupAt: new Date() } });
    expect((await list(alice)).map((item) => item.removable)).toEqual([true]);
    expect((await remove(alice, second)).status).toBe(200);
    const removed = await db().auditEvent.findMany({
      where: { userId: alice.user.id, type: "passkey.removed" },
      orderBy: { seq: "asc" },
    });
    expect(removed.map((event) => event.details)).toEqual([
      { synced: false, heldKey: false },
      { synced: false, heldKey: true },
      { synced: false, heldKey: true },
    ]);
  });

  it("two removals at once cannot take both holders of the key", async () => {
    const alice = await person();
    const wrappedKey = await wrappedKeyOf(alice.keys);
    const first = await registered(alice, newAuthenticator(), { wrappedKey });
    const second = await registered(alice, newAuthenticator(), { wrappedKey });
    const answers = await Promise.all([remove(alice, first), remove(alice, second)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(await db().passkey.count({ where: { userId: alice.user.id } })).toBe(1);
  });

  it("removing needs a fresh sign-in and the remove-passkey token", async () => {
    const alice = await person();
    const id = await registered(alice, newAuthenticator());
    const wrongToken = await send("DELETE", `/account/passkeys/${id}`, alice.browser, {
      csrf: alice.addToken,
    });
    expect(wrongToken.status).toBe(403);
    await ageSession(alice.browser.cookie, 6 * 86_400);
    const stale = await remove(alice, id);
    expect(stale.status).toBe(401);
    const answer = (await stale.json()) as { error: string; location: string };
    expect(answer.error).toBe("reauth_required");
    expect(new URL(answer.location, ISSUER).searchParams.get("returnUrl")).toBe("/account");
    expect(await db().passkey.count({ where: { id } })).toBe(1);
  });

  it("gives a passkey the registered key once; never another key, never over a key it holds", async () => {
    const alice = await person();
    const id = await registered(alice, newAuthenticator());
    const put = (wrappedKey: unknown) =>
      send("PUT", `/account/passkeys/${id}/key`, alice.browser, {
        csrf: alice.addToken,
        wrappedKey,
      });
    const other = await put(await wrappedKeyOf(generateKeyPair()));
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: string }).error).toBe("key_mismatch");
    expect((await put("not a key")).status).toBe(400);
    const wrappedKey = await wrappedKeyOf(alice.keys);
    expect((await put(wrappedKey)).status).toBe(200);
    const again = await put(await wrappedKeyOf(alice.keys));
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toBe("key_held");
    expect((await db().passkey.findUniqueOrThrow({ where: { id } })).wrappedKey).toBe(wrappedKey);
    expect((await list(alice)).map((item) => item.holdsKey)).toEqual([true]);
  });
});

describe("the key and its passkeys through setup and starting over", () => {
  /** A person without a key, at the key step of a flow. */
  async function atKeyStep() {
    const alice = await person({ key: false });
    const client = await createTestClient();
    const { flowId, setCookie } = await startTestFlow(client);
    await attachUser(
      { id: flowId, renewConnectionId: null },
      { id: alice.user.id, publicKey: null },
      "user",
      tenantSubject(client.partnerId, alice.user),
    );
    const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
    alice.browser.cookie += `; ${setCookie.split(";")[0]}`;
    return { alice, flow };
  }
  const userRow = (id: string) => db().user.findUniqueOrThrow({ where: { id } });

  it("a passkey made before the key is registered keeps the key it wraps; registering another drops it", async () => {
    const { alice, flow } = await atKeyStep();
    const token = csrfToken(flow, "key-setup");
    const made = generateKeyPair();
    const wrappedKey = await wrappedKeyOf(made);
    // This tab's passkeys wrap `made`; another tab registers its own key first.
    expect((await register(alice, newAuthenticator(), { wrappedKey }, token)).status).toBe(201);
    await registered(alice, newAuthenticator(), { wrappedKey });
    const other = generateKeyPair();
    const keyPosted = await post("/setup/key", alice.browser, {
      csrf: token,
      publicKey: other.publicKeyRawB64,
      backup: false,
    });
    expect(keyPosted.status).toBe(200);
    const passkeys = await db().passkey.findMany({ where: { userId: alice.user.id } });
    expect(passkeys.map((passkey) => passkey.wrappedKey)).toEqual([null, null]);
    // No passphrase backup was saved on this path.
    expect((await userRow(alice.user.id)).keyBackupAt).toBeNull();
  });

  it("registering the key the passkey wraps keeps it, and records no backup: none was made", async () => {
    const { alice, flow } = await atKeyStep();
    const token = csrfToken(flow, "key-setup");
    const made = generateKeyPair();
    const wrappedKey = await wrappedKeyOf(made);
    expect((await register(alice, newAuthenticator(), { wrappedKey }, token)).status).toBe(201);
    // Even without `backup: false`: the passkey holding the key shows the path it came by.
    const keyPosted = await post("/setup/key", alice.browser, {
      csrf: token,
      publicKey: made.publicKeyRawB64,
    });
    expect(keyPosted.status).toBe(200);
    const passkey = await db().passkey.findFirstOrThrow({ where: { userId: alice.user.id } });
    expect(passkey.wrappedKey).toBe(wrappedKey);
    expect((await userRow(alice.user.id)).keyBackupAt).toBeNull();
    // Posted again (a resumed setup), it still records none.
    await post("/setup/key", alice.browser, { csrf: token, publicKey: made.publicKeyRawB64 });
    expect((await userRow(alice.user.id)).keyBackupAt).toBeNull();
  });

  it("the passphrase path registers the key once its backup is confirmed, and records that backup", async () => {
    const { alice, flow } = await atKeyStep();
    const token = csrfToken(flow, "key-setup");
    // A passkey that signs in only (no PRF) holds nothing.
    expect((await register(alice, newAuthenticator(), {}, token)).status).toBe(201);
    const made = generateKeyPair();
    const keyPosted = await post("/setup/key", alice.browser, {
      csrf: token,
      publicKey: made.publicKeyRawB64,
    });
    expect(keyPosted.status).toBe(200);
    expect((await userRow(alice.user.id)).keyBackupAt).not.toBeNull();
  });

  it("starting over drops the key every passkey held; the backup mark follows the new key's backup", async () => {
    const alice = await person();
    await db().user.update({ where: { id: alice.user.id }, data: { keyBackupAt: new Date() } });
    const wrappedKey = await wrappedKeyOf(alice.keys);
    const id = await registered(alice, newAuthenticator(), { wrappedKey });
    const startOverToken = accountCsrfToken(alice.session, "start-over");
    const replacement = generateKeyPair();
    const replaced = await post("/account/key/start-over", alice.browser, {
      csrf: startOverToken,
      replaces: alice.keys.publicKeyRawB64,
      publicKey: replacement.publicKeyRawB64,
      backup: false,
    });
    expect(replaced.status).toBe(200);
    expect((await db().passkey.findUniqueOrThrow({ where: { id } })).wrappedKey).toBeNull();
    expect((await userRow(alice.user.id)).keyBackupAt).toBeNull();
    // A new key's backup, confirmed before the post (today's screens), is recorded.
    const again = await post("/account/key/start-over", alice.browser, {
      csrf: startOverToken,
      replaces: replacement.publicKeyRawB64,
      publicKey: generateKeyPair().publicKeyRawB64,
    });
    expect(again.status).toBe(200);
    expect((await userRow(alice.user.id)).keyBackupAt).not.toBeNull();
  });
});
