import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { loginNonceCookieName } from "../auth/login-challenges";
import { FRESH_SIGN_IN_SECONDS, sessionCookieName } from "../auth/sessions";
import { ensureTenant } from "../banking/tenants";
import { generateKeyPair } from "../crypto/envelope";
import { keyedHash } from "../crypto/keyed-hash";
import { db } from "../db/client";
import { CLIENT_IP_HEADER } from "../http/client-ip";
import { findLastMessage } from "../mail";
import { connectBank, partnerWithRecipientKey } from "../../test/bank-data";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  signedInCookie,
  startTestFlow,
  type TestClient,
} from "../../test/oauth-fixtures";
import { handleConsentApprove } from "./consent";
import { CONTINUE_PATH, handleFlowContinue } from "./continue";
import { csrfToken } from "./csrf";
import { attachUser, keyModeOf, type KeyMode } from "./flows";
import { handleLoginCode, handleLoginRequest } from "./login";
import { tenantSubject } from "../banking/tenants";
import { keyProofFor } from "../../test/key-proof";

/**
 * Stale sessions re-confirm before approving in partner-key mode
 * (docs/sessions.md): real requests against the real handlers and database.
 */

const cookiePair = (setCookie: string) => setCookie.split(";")[0] ?? "";
const sessionToken = (cookie: string) => cookie.slice(cookie.indexOf("=") + 1);

/** Makes the browser's session look `seconds` old. */
async function ageSession(sessionCookie: string, seconds: number) {
  await db().browserSession.update({
    where: { idHash: keyedHash("browser-session", sessionToken(sessionCookie)) },
    data: { createdAt: new Date(Date.now() - seconds * 1000) },
  });
}

/** A browser signed in to a flow of `client`, at the step the flow sends it to. */
async function flowAt(client: TestClient, keyMode: KeyMode, publicKey: string | null = null) {
  const user = await createTestUser();
  if (publicKey) await db().user.update({ where: { id: user.id }, data: { publicKey } });
  const { flowId, setCookie } = await startTestFlow(client, { state: "st" });
  await attachUser(
    { id: flowId, renewConnectionId: null },
    { id: user.id, publicKey },
    keyMode,
    tenantSubject(client.partnerId, user),
  );
  const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
  const flowCookie = cookiePair(setCookie);
  const session = await signedInCookie(user.id);
  return { user, flow, flowCookie, session, cookies: `${flowCookie}; ${session}` };
}

function post(path: string, cookies: string, body: Record<string, string>, json = false) {
  return new Request(`${ISSUER}${path}`, {
    method: "POST",
    headers: {
      "Content-Type": json ? "application/json" : "application/x-www-form-urlencoded",
      Origin: ISSUER,
      Cookie: cookies,
      [CLIENT_IP_HEADER]: `203.0.113.${randomBytes(1)[0]}-${randomBytes(4).toString("hex")}`,
    },
    body: json ? JSON.stringify(body) : new URLSearchParams(body).toString(),
  });
}

const approve = (flow: { id: string; csrfSecret: string }, cookies: string) =>
  handleConsentApprove(post("/consent/approve", cookies, { csrf: csrfToken(flow, "approve") }));

const flowRow = (id: string) => db().flow.findUniqueOrThrow({ where: { id } });

describe("stale sessions re-confirm before approving (partner-key mode)", () => {
  it("a stale session cannot approve: it is sent to sign in again as the same address, and nothing is consented or minted", async () => {
    const { client } = await partnerWithRecipientKey();
    const { user, flow, session, cookies } = await flowAt(client, "partner");
    await ageSession(session, FRESH_SIGN_IN_SECONDS + 60);

    const response = await approve(flow, cookies);
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get("location") ?? "", ISSUER);
    expect(location.pathname).toBe("/login");
    expect(Object.fromEntries(location.searchParams)).toEqual({
      email: user.email,
      reconfirm: "1",
      returnUrl: CONTINUE_PATH,
    });
    const after = await flowRow(flow.id);
    expect(after).toMatchObject({ consentedAt: null, completedAt: null, userId: user.id });
    expect(await db().authorizationCode.count({ where: { flowId: flow.id } })).toBe(0);
  });

  it("a fresh session approves in one click, also just inside the window", async () => {
    const { client } = await partnerWithRecipientKey();
    const { flow, session, cookies } = await flowAt(client, "partner");
    await ageSession(session, FRESH_SIGN_IN_SECONDS - 60);

    const response = await approve(flow, cookies);
    expect(response.status).toBe(303);
    // No bank yet: consent given, the bank picker is next.
    expect(response.headers.get("location")).toBe("/banks");
    expect((await flowRow(flow.id)).consentedAt).not.toBeNull();
  });

  it("re-confirming: a new mail to the same address, the new session replaces the stale one, and the approval then goes through", async () => {
    const { client } = await partnerWithRecipientKey();
    const { user, flow, flowCookie, session, cookies } = await flowAt(client, "partner");
    await ageSession(session, 60 * 60);
    const sent = await approve(flow, cookies);
    const login = new URL(sent.headers.get("location") ?? "", ISSUER);

    // The sign-in page's form, as prefilled: the same address, back to the flow afterwards.
    const requested = await handleLoginRequest(
      post("/login/request", cookies, {
        email: login.searchParams.get("email") ?? "",
        returnUrl: login.searchParams.get("returnUrl") ?? "",
        csrf: csrfToken(flow, "login"),
      }),
    );
    expect(requested.status).toBe(303);
    const mail = await findLastMessage(user.email);
    expect(mail?.code).toMatch(/^\d{6}$/);
    const nonce = cookiePair(
      requested.headers.getSetCookie().find((c) => c.startsWith(loginNonceCookieName())) ?? "",
    );
    const signedIn = await handleLoginCode(
      post("/login/code", `${cookies}; ${nonce}`, {
        email: user.email,
        code: mail?.code ?? "",
        returnUrl: CONTINUE_PATH,
        csrf: csrfToken(flow, "login"),
      }),
    );
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("location")).toBe(CONTINUE_PATH);
    const fresh = cookiePair(
      signedIn.headers.getSetCookie().find((c) => c.startsWith(`${sessionCookieName()}=`)) ?? "",
    );
    // The stale session is revoked, not merely overwritten in this browser.
    expect(
      await db().browserSession.findUnique({
        where: { idHash: keyedHash("browser-session", sessionToken(session)) },
      }),
    ).toBeNull();

    const renewed = `${flowCookie}; ${fresh}`;
    const continued = await handleFlowContinue(
      new Request(`${ISSUER}${CONTINUE_PATH}`, { headers: { Cookie: renewed } }),
    );
    expect(continued.headers.get("location")).toBe("/consent");
    const approved = await approve(flow, renewed);
    expect(approved.headers.get("location")).toBe("/banks");
    expect((await flowRow(flow.id)).consentedAt).not.toBeNull();
    // The stale cookie, replayed, approves nothing.
    await db().flow.update({ where: { id: flow.id }, data: { consentedAt: null } });
    const replayed = await approve(flow, cookies);
    expect(replayed.status).toBe(303);
    expect(replayed.headers.get("location")).toBe("/login");
    expect((await flowRow(flow.id)).consentedAt).toBeNull();
  });

  it("user-key mode asks no mail: the proof that the browser holds the key is that confirmation", async () => {
    const client = await createTestClient();
    const keys = generateKeyPair();
    const { user, flow, session, cookies } = await flowAt(client, "user", keys.publicKeyRawB64);
    const partner = await db().partner.findUniqueOrThrow({ where: { id: client.partnerId ?? "" } });
    expect(keyModeOf(partner)).toBe("user");
    const person = await db().user.findUniqueOrThrow({ where: { id: user.id } });
    const tenant = await db().$transaction((tx) => ensureTenant(tx, { user: person, partner }));
    await connectBank(tenant.id, keys.publicKeyRawB64);
    await ageSession(session, FRESH_SIGN_IN_SECONDS + 60);

    const response = await handleConsentApprove(
      post(
        "/consent/approve",
        cookies,
        {
          csrf: csrfToken(flow, "approve"),
          publicKey: keys.publicKeyRawB64,
          proof: await keyProofFor(flow, cookies, keys.privateKeyPkcs8B64),
        },
        true,
      ),
    );
    expect(response.status).toBe(200);
    const relay = (await response.json()) as { fields: [string, string][] };
    expect(relay.fields.map(([name]) => name)).toContain("code");
  });
});

describe("GET /login/continue", () => {
  it("carries the browser's flow on as whoever signed in, dropping a consent given under the earlier sign-in", async () => {
    const { client } = await partnerWithRecipientKey();
    const { flow, flowCookie } = await flowAt(client, "partner");
    await db().flow.update({ where: { id: flow.id }, data: { consentedAt: new Date() } });
    const other = await createTestUser();
    const cookies = `${flowCookie}; ${await signedInCookie(other.id)}`;

    const response = await handleFlowContinue(
      new Request(`${ISSUER}${CONTINUE_PATH}`, { headers: { Cookie: cookies } }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/consent");
    expect(await flowRow(flow.id)).toMatchObject({
      userId: other.id,
      step: "consent",
      consentedAt: null,
    });
  });

  it("without a session goes to the flow's sign-in; without a flow, to the expired screen", async () => {
    const { client } = await partnerWithRecipientKey();
    const { flowCookie, session } = await flowAt(client, "partner");
    const answer = async (cookie: string) =>
      (
        await handleFlowContinue(new Request(`${ISSUER}${CONTINUE_PATH}`, { headers: { cookie } }))
      ).headers.get("location");
    expect(await answer(flowCookie)).toBe("/login?returnUrl=%2Flogin%2Fcontinue");
    expect(await answer(session)).toBe("/error?reason=expired");
  });
});
