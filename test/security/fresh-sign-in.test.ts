import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as startOverAtAccount from "../../app/(flow)/account/key/start-over/route";
import * as endAccess from "../../app/(flow)/account/access/end/route";
import * as removeBank from "../../app/(flow)/account/banks/remove/route";
import * as deleteEverything from "../../app/(flow)/account/delete/route";
import * as consentApprove from "../../app/(flow)/consent/approve/route";
import * as loginContinue from "../../app/(flow)/login/continue/route";
import * as startOverInFlow from "../../app/(flow)/setup/start-over/route";
import * as passkeyRegisterOptions from "../../app/(flow)/passkeys/register/options/route";
import * as passkeyRegister from "../../app/(flow)/passkeys/register/route";
import * as passkeySignInOptions from "../../app/(flow)/passkeys/sign-in/options/route";
import * as passkeySignIn from "../../app/(flow)/passkeys/sign-in/route";
import {
  accountCsrfToken,
  type AccountAction as AnyAccountAction,
} from "../../lib/account/session";
import { findSessionUser, FRESH_SIGN_IN_SECONDS, type SignedInUser } from "../../lib/auth/sessions";
import { ensureTenant, tenantSubject } from "../../lib/banking/tenants";
import { generateKeyPair } from "../../lib/crypto/envelope";
import { keyedHash } from "../../lib/crypto/keyed-hash";
import { db } from "../../lib/db/client";
import { CONTINUE_PATH } from "../../lib/flow/continue";
import { csrfToken } from "../../lib/flow/csrf";
import { attachUser } from "../../lib/flow/flows";
import { findLastMessage } from "../../lib/mail";
import { connectBank, connectedPartnerUser, partnerWithRecipientKey } from "../bank-data";
import { keyProofFor } from "../key-proof";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  signedInCookie,
  startTestFlow,
} from "../oauth-fixtures";
import { SoftwareAuthenticator } from "../passkey-authenticator";
import { startRouteServer, type RouteServer } from "../route-server";

/** The POST actions; the passkey actions (other methods and paths) are tested in lib/passkeys. */
// Passkeys and personal keys have tests of their own (lib/passkeys, test/security/personal-keys-panel.test.ts).
type AccountAction = Exclude<
  AnyAccountAction,
  "add-passkey" | "remove-passkey" | "create-key" | "revoke-key"
>;

/**
 * A session that is days old, or a session cookie copied to another
 * browser, cannot make an irreversible change or grant access in the
 * person's name (docs/sessions.md): the /account actions and starting over
 * need a fresh sign-in, and a user-key approval needs the proof that the
 * browser holds the person's key. Every request goes over HTTP to the
 * routes as the service serves them.
 */

const PATHS: Record<AccountAction, string> = {
  "end-access": "/account/access/end",
  "remove-bank": "/account/banks/remove",
  "start-over": "/account/key/start-over",
  delete: "/account/delete",
};

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({
    [PATHS["end-access"]]: endAccess,
    [PATHS["remove-bank"]]: removeBank,
    [PATHS["start-over"]]: startOverAtAccount,
    [PATHS.delete]: deleteEverything,
    "/setup/start-over": startOverInFlow,
    "/consent/approve": consentApprove,
    [CONTINUE_PATH]: loginContinue,
    "/passkeys/register/options": passkeyRegisterOptions,
    "/passkeys/register": passkeyRegister,
    "/passkeys/sign-in/options": passkeySignInOptions,
    "/passkeys/sign-in": passkeySignIn,
  });
});
afterAll(() => server.close());

/** A POST of JSON from this service's pages, from a client address of its own. */
function postJson(path: string, cookie: string, body: Record<string, unknown>) {
  return fetch(`${server.origin}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/json",
      Origin: ISSUER,
      Cookie: cookie,
      "X-Forwarded-For": `198.51.100.${randomInt(1, 255)}`,
    },
    body: JSON.stringify(body),
  });
}

const getPath = (path: string, cookie: string) =>
  fetch(`${server.origin}${path}`, { redirect: "manual", headers: { Cookie: cookie } });

const SIX_DAYS = 6 * 86_400;
const cookieToken = (cookie: string) => cookie.slice(cookie.indexOf("=") + 1);

async function ageSession(cookie: string, seconds: number) {
  await db().browserSession.update({
    where: { idHash: keyedHash("browser-session", cookieToken(cookie)) },
    data: { createdAt: new Date(Date.now() - seconds * 1000) },
  });
}

const sessionOf = async (cookie: string) =>
  (await findSessionUser(cookieToken(cookie))) as SignedInUser;

/** A person whose data is sealed to their own key, with a partner's access and a bank. */
async function person() {
  const granted = await connectedPartnerUser();
  const tenant = await db().tenant.findUniqueOrThrow({ where: { id: granted.tenantId } });
  const keys = generateKeyPair();
  const user = await db().user.update({
    where: { id: tenant.userId },
    data: { publicKey: keys.publicKeyRawB64, publicKeyAt: new Date() },
  });
  const cookie = await signedInCookie(user.id);
  const connection = await db().connection.findFirstOrThrow({ where: { tenantId: tenant.id } });
  return {
    user,
    keys,
    apiKey: granted.key,
    partnerId: granted.client.partnerId ?? "",
    connectionId: connection.id,
    cookie,
    session: await sessionOf(cookie),
  };
}

const accountPost = (action: AccountAction, cookie: string, body: Record<string, unknown>) =>
  postJson(PATHS[action], cookie, body);

/** Each action's body as its page sends it. */
function bodyFor(action: AccountAction, alice: Awaited<ReturnType<typeof person>>) {
  const csrf = accountCsrfToken(alice.session, action);
  switch (action) {
    case "end-access":
      return { csrf, partnerId: alice.partnerId };
    case "remove-bank":
      return { csrf, connectionId: alice.connectionId };
    case "start-over":
      return {
        csrf,
        replaces: alice.keys.publicKeyRawB64,
        publicKey: generateKeyPair().publicKeyRawB64,
      };
    case "delete":
      return { csrf, confirm: alice.user.email };
  }
}

/** Everything an irreversible action would change, to prove that none of it did. */
async function stateOf(alice: Awaited<ReturnType<typeof person>>) {
  return {
    user: await db().user.findUnique({
      where: { id: alice.user.id },
      select: { publicKey: true },
    }),
    connections: await db().connection.count({ where: { id: alice.connectionId } }),
    liveKeys: await db().apiKey.count({
      where: { tenant: { userId: alice.user.id }, revokedAt: null },
    }),
  };
}

const ACTIONS = Object.keys(PATHS) as AccountAction[];

describe("irreversible actions need a fresh sign-in", () => {
  for (const action of ACTIONS) {
    it(`${action}: a six-day-old session is sent to sign in again, and nothing changes`, async () => {
      const alice = await person();
      await ageSession(alice.cookie, SIX_DAYS);
      const before = await stateOf(alice);

      const response = await accountPost(action, alice.cookie, bodyFor(action, alice));
      expect(response.status).toBe(401);
      expect(response.headers.get("cache-control")).toContain("no-store");
      const answer = (await response.json()) as { error: string; location: string };
      expect(answer.error).toBe("reauth_required");
      const location = new URL(answer.location, ISSUER);
      expect(location.pathname).toBe("/login");
      expect(Object.fromEntries(location.searchParams)).toEqual({
        email: alice.user.email,
        reconfirm: "change",
        returnUrl: action === "start-over" ? "/account?key=start-over" : "/account",
      });
      expect(await stateOf(alice)).toEqual(before);
    });
  }

  it("a session cookie copied to another browser is refused like a stale one", async () => {
    const alice = await person();
    await ageSession(alice.cookie, FRESH_SIGN_IN_SECONDS + 1);
    // Another browser: the same cookie, nothing else of the person's browser.
    const response = await accountPost("delete", alice.cookie, bodyFor("delete", alice));
    expect(response.status).toBe(401);
    expect(await db().user.count({ where: { id: alice.user.id } })).toBe(1);
  });

  it("a fresh session starts over, and the person is mailed what happened and what to do", async () => {
    const alice = await person();
    const response = await accountPost("start-over", alice.cookie, bodyFor("start-over", alice));
    expect(response.status).toBe(200);
    const { user } = await stateOf(alice);
    expect(user?.publicKey).not.toBe(alice.keys.publicKeyRawB64);
    const mail = await findLastMessage(alice.user.email);
    expect(mail?.subject).toBe("Your key at Bank Connect was replaced");
    expect(mail?.text).toContain("secure your email account");
    expect(mail?.text).toContain(`${ISSUER}/account`);
  });

  it("a fresh session deletes everything, and the mail says so in the person's language", async () => {
    const alice = await person();
    await db().user.update({ where: { id: alice.user.id }, data: { locale: "de" } });
    const cookie = await signedInCookie(alice.user.id);
    const session = await sessionOf(cookie);
    const response = await accountPost("delete", cookie, {
      csrf: accountCsrfToken(session, "delete"),
      confirm: alice.user.email,
    });
    expect(response.status).toBe(200);
    expect(await db().user.count({ where: { id: alice.user.id } })).toBe(0);
    const mail = await findLastMessage(alice.user.email);
    expect(mail?.subject).toBe("Ihre Daten bei Bank Connect wurden gelöscht");
    expect(mail?.html).toContain('lang="de"');
  });

  it("starting over inside a flow: a stale session signs in again, then comes back to the key step", async () => {
    const client = await createTestClient();
    const user = await createTestUser();
    const old = generateKeyPair();
    await db().user.update({ where: { id: user.id }, data: { publicKey: old.publicKeyRawB64 } });
    const { flowId, setCookie } = await startTestFlow(client, { state: "st" });
    await attachUser(
      { id: flowId, renewConnectionId: null },
      { id: user.id, publicKey: old.publicKeyRawB64 },
      "user",
      tenantSubject(client.partnerId, user),
    );
    const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
    const session = await signedInCookie(user.id);
    const cookies = `${setCookie.split(";")[0]}; ${session}`;
    await ageSession(session, SIX_DAYS);
    const startOver = () =>
      postJson("/setup/start-over", cookies, {
        csrf: csrfToken(flow, "start-over"),
        replaces: old.publicKeyRawB64,
        publicKey: generateKeyPair().publicKeyRawB64,
      });

    const refused = await startOver();
    expect(refused.status).toBe(401);
    const { location } = (await refused.json()) as { location: string };
    const returnUrl = new URL(location, ISSUER).searchParams.get("returnUrl") ?? "";
    expect(returnUrl).toBe(`${CONTINUE_PATH}?then=setup`);
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).publicKey).toBe(
      old.publicKeyRawB64,
    );

    // Signed in again (a new session): the flow goes on at the key step, where the
    // browser's saved start-over is sent again.
    const freshCookies = `${setCookie.split(";")[0]}; ${await signedInCookie(user.id)}`;
    const back = await getPath(returnUrl, freshCookies);
    expect(back.headers.get("location")).toBe("/setup");
    // `then` names a screen, never an address.
    const elsewhere = await getPath(`${CONTINUE_PATH}?then=https://evil.example`, freshCookies);
    expect(elsewhere.headers.get("location")).not.toContain("evil");
  });
});

describe("a user-key approval needs the key, not only a session", () => {
  /** Alice ended the partner's access; her browser is still signed in, days later, at a new flow of that partner. */
  async function endedAccessAtConsent() {
    const client = await createTestClient();
    const user = await createTestUser();
    const keys = generateKeyPair();
    await db().user.update({ where: { id: user.id }, data: { publicKey: keys.publicKeyRawB64 } });
    const tenant = await db().$transaction((tx) =>
      ensureTenant(tx, {
        user: { ...user, publicKey: keys.publicKeyRawB64 },
        partner: { id: client.partnerId ?? "", recipientPublicKey: null },
      }),
    );
    await connectBank(tenant.id, keys.publicKeyRawB64);
    const { flowId, setCookie } = await startTestFlow(client, { state: "st" });
    await attachUser(
      { id: flowId, renewConnectionId: null },
      { id: user.id, publicKey: keys.publicKeyRawB64 },
      "user",
      tenantSubject(client.partnerId, user),
    );
    await db().flow.update({ where: { id: flowId }, data: { step: "consent" } });
    const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
    const session = await signedInCookie(user.id);
    await ageSession(session, SIX_DAYS);
    return { flow, keys, cookies: `${setCookie.split(";")[0]}; ${session}` };
  }

  const approve = (
    flow: { id: string; csrfSecret: string },
    cookies: string,
    fields: Record<string, string>,
  ) => postJson("/consent/approve", cookies, { csrf: csrfToken(flow, "approve"), ...fields });

  it("the registered public key alone (what the page shows) approves nothing", async () => {
    const { flow, keys, cookies } = await endedAccessAtConsent();
    const withoutProof: Record<string, string>[] = [
      { publicKey: keys.publicKeyRawB64 },
      { publicKey: keys.publicKeyRawB64, proof: "0".repeat(64) },
    ];
    for (const fields of withoutProof) {
      const response = await approve(flow, cookies, fields);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: "key_not_proven", location: "/consent" });
    }
    expect(await db().authorizationCode.count({ where: { flowId: flow.id } })).toBe(0);
  });

  it("a proof made for another session does not carry over", async () => {
    const { flow, keys, cookies } = await endedAccessAtConsent();
    const flowCookie = cookies.split("; ")[0] ?? "";
    const other = `${flowCookie}; ${await signedInCookie(flow.userId ?? "")}`;
    const proof = await keyProofFor(flow, other, keys.privateKeyPkcs8B64);
    const response = await approve(flow, cookies, { publicKey: keys.publicKeyRawB64, proof });
    expect(response.status).toBe(403);
  });

  it("the browser that opens the page's challenge with the key approves, however old its session", async () => {
    const { flow, keys, cookies } = await endedAccessAtConsent();
    const proof = await keyProofFor(flow, cookies, keys.privateKeyPkcs8B64);
    const response = await approve(flow, cookies, { publicKey: keys.publicKeyRawB64, proof });
    expect(response.status).toBe(200);
    expect(await db().authorizationCode.count({ where: { flowId: flow.id } })).toBe(1);
  });
});

describe("a passkey tap is a fresh sign-in", () => {
  /** Registers a passkey of a new software authenticator for `userId` (from a fresh session). */
  async function passkeyOf(userId: string) {
    const cookie = await signedInCookie(userId);
    const csrf = accountCsrfToken(await sessionOf(cookie), "add-passkey");
    const started = await postJson("/passkeys/register/options", cookie, { csrf });
    const { challengeId, options } = (await started.json()) as {
      challengeId: string;
      options: { challenge: string; rp: { id: string }; user: { id: string } };
    };
    const authenticator = new SoftwareAuthenticator(ISSUER);
    const response = authenticator.create(options);
    const registered = await postJson("/passkeys/register", cookie, {
      csrf,
      challengeId,
      response,
    });
    expect(registered.status).toBe(201);
    return authenticator;
  }

  /** One tap in the browser holding `cookies`: the new session's cookie and where to go on. */
  async function tap(
    authenticator: SoftwareAuthenticator,
    cookies: string,
    fields: Record<string, unknown> = {},
  ) {
    const started = await postJson("/passkeys/sign-in/options", cookies, {});
    const { challengeId, options } = (await started.json()) as {
      challengeId: string;
      options: { challenge: string; rpId: string };
    };
    const response = authenticator.get(options);
    const answer = await postJson("/passkeys/sign-in", cookies, {
      challengeId,
      response,
      ...fields,
    });
    expect(answer.status).toBe(200);
    const session =
      answer.headers
        .getSetCookie()
        .find((cookie) => cookie.startsWith("bc_session="))
        ?.split(";")[0] ?? "";
    return { session, next: ((await answer.json()) as { next: string }).next };
  }

  it("a six-day-old session's irreversible change goes through after the person's passkey tap", async () => {
    const alice = await person();
    const authenticator = await passkeyOf(alice.user.id);
    await ageSession(alice.cookie, SIX_DAYS);
    const refused = await accountPost("end-access", alice.cookie, bodyFor("end-access", alice));
    expect(refused.status).toBe(401);
    const { location } = (await refused.json()) as { location: string };
    const returnUrl = new URL(location, ISSUER).searchParams.get("returnUrl") ?? "";

    // The sign-in page's passkey button, with the page's return path.
    const { session, next } = await tap(authenticator, alice.cookie, { returnUrl });
    expect(next).toBe("/account");
    expect(await findSessionUser(cookieToken(alice.cookie))).toBeNull();
    const renewed = await sessionOf(session);
    expect(renewed.userId).toBe(alice.user.id);
    const ended = await accountPost("end-access", session, {
      csrf: accountCsrfToken(renewed, "end-access"),
      partnerId: alice.partnerId,
    });
    expect(ended.status).toBe(200);
    expect((await stateOf(alice)).liveKeys).toBe(0);
  });

  it("a stale session re-confirms a partner-key approval with a passkey tap, and the approval goes through", async () => {
    const { client } = await partnerWithRecipientKey();
    const user = await createTestUser();
    const authenticator = await passkeyOf(user.id);
    const { flowId, setCookie } = await startTestFlow(client, { state: "st" });
    await attachUser(
      { id: flowId, renewConnectionId: null },
      { id: user.id, publicKey: null },
      "partner",
      tenantSubject(client.partnerId, user),
    );
    const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
    const flowCookie = setCookie.split(";")[0] ?? "";
    const stale = await signedInCookie(user.id);
    await ageSession(stale, SIX_DAYS);
    const approveForm = (cookies: string) =>
      fetch(`${server.origin}/consent/approve`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Origin: ISSUER,
          Cookie: cookies,
          "X-Forwarded-For": `198.51.100.${randomInt(1, 255)}`,
        },
        body: new URLSearchParams({ csrf: csrfToken(flow, "approve") }).toString(),
      });

    const sent = await approveForm(`${flowCookie}; ${stale}`);
    expect(sent.status).toBe(303);
    const login = new URL(sent.headers.get("location") ?? "", ISSUER);
    expect(login.searchParams.get("reconfirm")).toBe("1");
    expect((await db().flow.findUniqueOrThrow({ where: { id: flowId } })).consentedAt).toBeNull();

    const { session, next } = await tap(authenticator, `${flowCookie}; ${stale}`, {
      flowId,
      returnUrl: login.searchParams.get("returnUrl"),
    });
    expect(next).toBe(CONTINUE_PATH);
    const renewed = `${flowCookie}; ${session}`;
    const continued = await getPath(next, renewed);
    expect(continued.headers.get("location")).toBe("/consent");
    const approved = await approveForm(renewed);
    expect(approved.headers.get("location")).toBe("/banks");
    expect(
      (await db().flow.findUniqueOrThrow({ where: { id: flowId } })).consentedAt,
    ).not.toBeNull();
  });
});
