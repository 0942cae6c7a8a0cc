import { uniqueAddress } from "../../test/audit";
import { describe, expect, it } from "vitest";
import {
  loginNonceCookieName,
  newBrowserNonce,
  requestLoginChallenge,
} from "../auth/login-challenges";
import { findLastMessage } from "../mail";
import { db } from "../db/client";
import { tenantSubject } from "../banking/tenants";
import { partnerWithRecipientKey } from "../../test/bank-data";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  REDIRECT_URI,
  signedInCookie,
  startTestFlow,
  uniqueEmail,
  type TestClient,
} from "../../test/oauth-fixtures";
import { approveFlow } from "./approve";
import { handleCancelRequest } from "./cancel";
import { handleConsentApprove } from "./consent";
import { csrfToken, isStaleTabToken } from "./csrf";
import { lookUpBrowserFlow, resumePath, STALE_TAB_PATH } from "./dead-ends";
import { attachUser, partnerSiteOf } from "./flows";
import { handleLoginCode, normalizeLoginCode } from "./login";

/** Ways forward from pages that no longer match the browser's flow. */

const cookieValue = (setCookie: string) => (setCookie.split(";")[0] ?? "").split("=")[1] ?? "";
const cookiePair = (setCookie: string) => setCookie.split(";")[0] ?? "";

function post(path: string, cookies: string, body: Record<string, string>, json = false) {
  return new Request(`${ISSUER}${path}`, {
    method: "POST",
    headers: {
      "Content-Type": json ? "application/json" : "application/x-www-form-urlencoded",
      Origin: ISSUER,
      Cookie: cookies,
    },
    body: json ? JSON.stringify(body) : new URLSearchParams(body).toString(),
  });
}

/** A browser signed in to a partner-key flow of `client`, at consent. */
async function signedInAtConsent(client: TestClient, user?: { id: string; email: string }) {
  const person = user ?? (await createTestUser());
  const { flowId, setCookie } = await startTestFlow(client, { state: "st" });
  await attachUser(
    { id: flowId, renewConnectionId: null },
    { id: person.id, publicKey: null },
    "partner",
    tenantSubject(client.partnerId, person),
  );
  const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
  return { flow, user: person, flowCookie: cookiePair(setCookie), setCookie };
}

describe("the flow behind a browser's cookie, in any state", () => {
  it("tells a live flow (with where it stands) from an approved, a cancelled and an expired one", async () => {
    const client = await createTestClient();
    const user = await createTestUser();
    const live = await startTestFlow(client);
    await db().flow.update({
      where: { id: live.flowId },
      data: { userId: user.id, step: "banks" },
    });
    expect((await lookUpBrowserFlow(cookieValue(live.setCookie), user.id))?.outcome).toEqual({
      kind: "live",
      resume: "/banks",
    });
    // Someone else (or nobody) signed in: the flow resumes at its sign-in.
    expect((await lookUpBrowserFlow(cookieValue(live.setCookie), null))?.outcome).toEqual({
      kind: "live",
      resume: "/login",
    });

    const approved = await startTestFlow(client);
    await db().flow.update({ where: { id: approved.flowId }, data: { userId: user.id } });
    await approveFlow(approved.flowId, user.id);
    const found = await lookUpBrowserFlow(cookieValue(approved.setCookie), user.id);
    expect(found?.outcome).toEqual({ kind: "approved", partnerSite: "https://app.example.com" });
    expect(found?.flow.client.partner?.name).toBe("Acme Budget");

    const cancelled = await startTestFlow(client);
    await db().flow.update({
      where: { id: cancelled.flowId },
      data: { completedAt: new Date(), step: "done" },
    });
    expect((await lookUpBrowserFlow(cookieValue(cancelled.setCookie), null))?.outcome).toEqual({
      kind: "cancelled",
      partnerSite: "https://app.example.com",
    });

    const expired = await startTestFlow(client);
    await db().flow.update({
      where: { id: expired.flowId },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await lookUpBrowserFlow(cookieValue(expired.setCookie), null))?.outcome).toEqual({
      kind: "expired",
      partnerSite: "https://app.example.com",
    });
  });

  it("finds nothing for a forged cookie secret", async () => {
    const client = await createTestClient();
    const { flowId } = await startTestFlow(client);
    expect(await lookUpBrowserFlow(`${flowId}.${"x".repeat(43)}`, null)).toBeNull();
    expect(await lookUpBrowserFlow("garbage", null)).toBeNull();
  });

  it("links only an http(s) redirect URI's origin as the partner's site", () => {
    expect(partnerSiteOf(REDIRECT_URI)).toBe("https://app.example.com");
    expect(partnerSiteOf("http://127.0.0.1:4000/cb?x=1")).toBe("http://127.0.0.1:4000");
    expect(partnerSiteOf("com.example.app:/callback")).toBeNull();
    expect(partnerSiteOf("not a url")).toBeNull();
  });

  it("links a partner on this service's own origin (the demo) at its own path, not the home page", () => {
    expect(partnerSiteOf(`${ISSUER}/demo/callback`)).toBe("/demo");
    expect(partnerSiteOf(`${ISSUER}/shop/oauth/callback?x=1`)).toBe("/shop/oauth");
    expect(partnerSiteOf(`${ISSUER}/callback`)).toBe("/");
  });

  it("resumes a renewal at its bank and a finished step at consent", () => {
    const flow = { userId: "u", renewConnectionId: null };
    expect(resumePath({ ...flow, step: "key_setup" }, "u")).toBe("/setup");
    expect(resumePath({ ...flow, step: "relay" }, "u")).toBe("/consent");
    expect(resumePath({ ...flow, step: "banks", renewConnectionId: "c" }, "u")).toBe(
      "/banks/renew",
    );
    expect(resumePath({ ...flow, step: "banks" }, "someone else")).toBe("/login");
  });
});

describe("a tab whose flow this browser replaced", () => {
  it("sends Allow from the older tab on to the current flow instead of refusing it", async () => {
    const { client } = await partnerWithRecipientKey();
    const older = await signedInAtConsent(client);
    // The partner's link opened again in the same browser: a newer flow, a new cookie.
    const newer = await signedInAtConsent(client, older.user);
    const cookies = `${newer.flowCookie}; ${await signedInCookie(older.user.id)}`;
    const oldToken = csrfToken(older.flow, "approve");

    const form = await handleConsentApprove(post("/consent/approve", cookies, { csrf: oldToken }));
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe(STALE_TAB_PATH);

    const json = await handleConsentApprove(
      post("/consent/approve", cookies, { csrf: oldToken }, true),
    );
    expect(json.status).toBe(409);
    expect(await json.json()).toEqual({ error: "stale_tab", location: STALE_TAB_PATH });

    // Neither flow was approved by it; a forged token is still refused.
    for (const id of [older.flow.id, newer.flow.id]) {
      expect((await db().flow.findUniqueOrThrow({ where: { id } })).completedAt).toBeNull();
    }
    const forged = `${older.flow.id}.${"A".repeat(43)}`;
    expect(
      (await handleConsentApprove(post("/consent/approve", cookies, { csrf: forged }))).status,
    ).toBe(403);
    expect(await isStaleTabToken(newer.flow, "approve", forged)).toBe(false);
    expect(await isStaleTabToken(newer.flow, "approve", csrfToken(newer.flow, "approve"))).toBe(
      false,
    );
  });

  it("answers Allow and Back to the partner after the flow finished with the error screen", async () => {
    const { client } = await partnerWithRecipientKey();
    const { flow, user, flowCookie } = await signedInAtConsent(client);
    const cookies = `${flowCookie}; ${await signedInCookie(user.id)}`;
    await approveFlow(flow.id, user.id);
    const allow = await handleConsentApprove(
      post("/consent/approve", cookies, { csrf: csrfToken(flow, "approve") }),
    );
    expect(allow.status).toBe(303);
    expect(allow.headers.get("location")).toBe("/error?reason=expired");
    const back = await handleCancelRequest(
      post("/oauth/cancel", cookies, { csrf: csrfToken(flow, "cancel") }),
    );
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe("/error?reason=expired");
  });
});

describe("the sign-in code as people paste it", () => {
  it("drops spaces, dashes and dots and reads full-width digits", () => {
    expect(normalizeLoginCode("710 617")).toBe("710617");
    expect(normalizeLoginCode(" 710-617 ")).toBe("710617");
    expect(normalizeLoginCode("710\u2013617")).toBe("710617");
    expect(normalizeLoginCode("７１０６１７")).toBe("710617");
    expect(normalizeLoginCode("71o617")).toBe("71o617");
  });

  it("signs in with a pasted code that has a space in it", async () => {
    const email = uniqueEmail("paste");
    const nonce = newBrowserNonce();
    const request = {
      email,
      locale: "en" as const,
      partnerName: null,
      flowId: null,
      returnUrl: null,
      browserNonce: nonce,
      clientIp: uniqueAddress(),
    };
    expect(await requestLoginChallenge(request)).toEqual({
      status: "sent",
    });
    const code = (await findLastMessage(email))?.code ?? "";
    const pasted = `${code.slice(0, 3)} ${code.slice(3)}`;
    const response = await handleLoginCode(
      post("/login/code", `${loginNonceCookieName()}=${nonce}`, { email, code: pasted }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).not.toContain("error=");
    expect(response.headers.get("set-cookie")).toContain("bc_session");
  });
});
