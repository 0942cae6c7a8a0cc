import { describe, expect, it } from "vitest";
import { signOutToken, findSignedInUser, type SignedInUser } from "../auth/sessions";
import { generateKeyPair } from "../crypto/envelope";
import { db } from "../db/client";
import { DEFAULT_BODY_LIMIT } from "../http/body-limits";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  signedInCookie,
  startTestFlow,
} from "../../test/oauth-fixtures";
import { BANK_FORM } from "./banks";
import { handleCancelRequest } from "./cancel";
import { APPROVE_POST, handleConsentApprove } from "./consent";
import { csrfToken } from "./csrf";
import { FLOW_ENDED_PATH, STALE_TAB_PATH } from "./dead-ends";
import { guardFlowPost } from "./guard";
import { handleKeyRegistration, keyPost } from "./key-setup";
import { handleLoginRequest, SIGN_IN_FORM } from "./login";
import { FLOW_REFUSALS, type FlowRefusal } from "./refusals";
import { SIGN_OUT_FORM } from "./sign-out";

/**
 * The door of the flow's posts (./guard.ts), with real requests against the
 * real database: every refusal of the table, in each shape a browser reads.
 */

const KEY_JSON = keyPost("key-setup");

/** Every reason a test below produced, checked against the table at the end. */
const seen = new Set<FlowRefusal>();

/** A browser signed in to a live flow at `step`. */
async function browser(step: "banks" | "key_setup" | "consent" = "banks") {
  const client = await createTestClient();
  const user = await createTestUser();
  const { flowId, setCookie } = await startTestFlow(client);
  await db().flow.update({ where: { id: flowId }, data: { userId: user.id, step } });
  const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
  const flowCookie = setCookie.split(";")[0] ?? "";
  const sessionCookie = await signedInCookie(user.id);
  return {
    client,
    user,
    flow,
    flowCookie,
    sessionCookie,
    cookie: `${flowCookie}; ${sessionCookie}`,
  };
}

interface PostOptions {
  path?: string;
  cookie?: string;
  origin?: string | null;
  contentType?: string | null;
}

function post(body: string, options: PostOptions = {}): Request {
  const headers = new Headers();
  const origin = options.origin === undefined ? ISSUER : options.origin;
  if (origin !== null) headers.set("Origin", origin);
  const type =
    options.contentType === undefined ? "application/x-www-form-urlencoded" : options.contentType;
  if (type !== null) headers.set("Content-Type", type);
  if (options.cookie) headers.set("Cookie", options.cookie);
  return new Request(`${ISSUER}${options.path ?? "/banks/start"}`, {
    method: "POST",
    headers,
    body,
  });
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const json = (fields: unknown, options: PostOptions = {}) =>
  post(JSON.stringify(fields), { contentType: "application/json", ...options });

/** A refusal with an empty body and this status (a form post with nothing to show). */
async function expectBare(answer: unknown, reason: FlowRefusal) {
  expect(answer).toBeInstanceOf(Response);
  const response = answer as Response;
  expect(response.status).toBe(FLOW_REFUSALS[reason].status);
  expect(await response.text()).toBe("");
  seen.add(reason);
}

/** A form post sent on to a screen. */
async function expectScreen(answer: unknown, reason: FlowRefusal, location: string) {
  expect(answer).toBeInstanceOf(Response);
  const response = answer as Response;
  expect(response.status).toBe(303);
  expect(response.headers.get("location")).toBe(location);
  seen.add(reason);
}

/** A script's post: the status with `{error, location?}`. */
async function expectJson(answer: unknown, reason: FlowRefusal, location?: string) {
  expect(answer).toBeInstanceOf(Response);
  const response = answer as Response;
  expect(response.status).toBe(FLOW_REFUSALS[reason].status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(await response.json()).toEqual(location ? { error: reason, location } : { error: reason });
  seen.add(reason);
}

describe("the flow posts' door (guardFlowPost)", () => {
  it("lets a post through with its flow, its user and its parsed body", async () => {
    const { flow, user, cookie } = await browser();
    const passed = await guardFlowPost(
      post(form({ csrf: csrfToken(flow, "bank"), bank: "Sandbox" }), { cookie }),
      BANK_FORM,
    );
    if (passed instanceof Response) throw new Error(`refused: ${passed.status}`);
    expect(passed.flow.id).toBe(flow.id);
    expect(passed.user.userId).toBe(user.id);
    expect(passed.body.form.get("bank")).toBe("Sandbox");

    const keyPost = await guardFlowPost(
      json({ csrf: csrfToken(flow, "key-setup"), publicKey: "k" }, { cookie }),
      KEY_JSON,
    );
    if (keyPost instanceof Response) throw new Error(`refused: ${keyPost.status}`);
    expect(keyPost.body.fields).toEqual({ csrf: csrfToken(flow, "key-setup"), publicKey: "k" });
  });

  it("refuses a foreign or missing Origin before reading anything", async () => {
    const { flow, cookie } = await browser();
    const body = form({ csrf: csrfToken(flow, "bank") });
    await expectBare(
      await guardFlowPost(post(body, { cookie, origin: "https://evil.example" }), BANK_FORM),
      "cross_origin",
    );
    await expectBare(
      await guardFlowPost(post(body, { cookie, origin: null }), BANK_FORM),
      "cross_origin",
    );
    // The same origin with another port or scheme is another origin (RFC 6454).
    await expectBare(
      await guardFlowPost(post(body, { cookie, origin: "http://localhost:3001" }), BANK_FORM),
      "cross_origin",
    );
    await expectJson(
      await guardFlowPost(
        json({ csrf: csrfToken(flow, "key-setup") }, { cookie, origin: "https://evil.example" }),
        KEY_JSON,
      ),
      "cross_origin",
    );
  });

  it("refuses a missing, forged, other-action or other-flow CSRF token", async () => {
    const { flow, cookie } = await browser();
    const other = await browser();
    for (const csrf of [
      null,
      "",
      "forged",
      csrfToken(flow, "approve"),
      `${flow.id}.${"A".repeat(43)}`,
    ]) {
      const fields: Record<string, string> = csrf === null ? {} : { csrf };
      await expectBare(
        await guardFlowPost(post(form(fields), { cookie }), BANK_FORM),
        "invalid_csrf",
      );
    }
    await expectJson(
      await guardFlowPost(json({ csrf: csrfToken(flow, "bank") }, { cookie }), KEY_JSON),
      "invalid_csrf",
    );
    // A token must be a string: a number or an object in its place is no token.
    await expectJson(await guardFlowPost(json({ csrf: 1 }, { cookie }), KEY_JSON), "invalid_csrf");
    // Another browser's live flow's token in this browser: not a tab of this
    // browser's (the other flow is live elsewhere), yet genuinely the
    // service's: sent on as a stale tab, never acted on.
    await expectScreen(
      await guardFlowPost(
        post(form({ csrf: csrfToken(other.flow, "bank") }), { cookie }),
        BANK_FORM,
      ),
      "stale_tab",
      STALE_TAB_PATH,
    );
  });

  it("sends a tab whose flow this browser replaced on, as a form or as a script", async () => {
    const earlier = await browser();
    // The partner's link opened again in the same browser: a new flow cookie.
    const { flowId, setCookie } = await startTestFlow(earlier.client);
    await db().flow.update({
      where: { id: flowId },
      data: { userId: earlier.user.id, step: "banks" },
    });
    const cookie = `${setCookie.split(";")[0]}; ${earlier.sessionCookie}`;
    await expectScreen(
      await guardFlowPost(
        post(form({ csrf: csrfToken(earlier.flow, "bank") }), { cookie }),
        BANK_FORM,
      ),
      "stale_tab",
      STALE_TAB_PATH,
    );
    await expectJson(
      await guardFlowPost(
        json({ csrf: csrfToken(earlier.flow, "key-setup") }, { cookie }),
        KEY_JSON,
      ),
      "stale_tab",
      STALE_TAB_PATH,
    );
  });

  it("refuses a browser without a live flow: no cookie, a forged one, an expired flow", async () => {
    const { flow, flowCookie, sessionCookie } = await browser();
    const body = form({ csrf: csrfToken(flow, "bank") });
    for (const cookie of [sessionCookie, `${flowCookie.slice(0, -4)}AAAA; ${sessionCookie}`]) {
      await expectScreen(
        await guardFlowPost(post(body, { cookie }), BANK_FORM),
        "no_flow",
        FLOW_ENDED_PATH,
      );
    }
    await db().flow.update({
      where: { id: flow.id },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    const cookie = `${flowCookie}; ${sessionCookie}`;
    await expectScreen(
      await guardFlowPost(post(body, { cookie }), BANK_FORM),
      "no_flow",
      FLOW_ENDED_PATH,
    );
    await expectJson(
      await guardFlowPost(json({ csrf: csrfToken(flow, "key-setup") }, { cookie }), KEY_JSON),
      "no_flow",
      FLOW_ENDED_PATH,
    );
  });

  it("refuses a post from nobody, or from somebody else than the flow's user", async () => {
    const { flow, flowCookie } = await browser();
    const body = form({ csrf: csrfToken(flow, "bank") });
    await expectScreen(
      await guardFlowPost(post(body, { cookie: flowCookie }), BANK_FORM),
      "signed_out",
      "/login",
    );
    const someoneElse = await signedInCookie((await createTestUser()).id);
    await expectScreen(
      await guardFlowPost(post(body, { cookie: `${flowCookie}; ${someoneElse}` }), BANK_FORM),
      "signed_out",
      "/login",
    );
    // Signed out on the server: the session's row is gone, the cookie is nobody.
    await db().flow.update({ where: { id: flow.id }, data: { userId: null, step: "login" } });
    await expectJson(
      await guardFlowPost(
        json({ csrf: csrfToken(flow, "key-setup") }, { cookie: flowCookie }),
        KEY_JSON,
      ),
      "signed_out",
      "/login",
    );
  });

  it("sends a post made at another step to the flow's current screen", async () => {
    const { flow, cookie } = await browser("key_setup");
    await expectScreen(
      await guardFlowPost(post(form({ csrf: csrfToken(flow, "bank") }), { cookie }), BANK_FORM),
      "wrong_step",
      "/setup",
    );
    await expectJson(
      await guardFlowPost(json({ csrf: csrfToken(flow, "approve") }, { cookie }), APPROVE_POST),
      "wrong_step",
      "/setup",
    );
    // A forged token at the wrong step is refused as forged, never told the way.
    await expectBare(
      await guardFlowPost(post(form({ csrf: "forged" }), { cookie }), BANK_FORM),
      "invalid_csrf",
    );
  });

  it("refuses a body over the path's limit with its 413, without reading the rest", async () => {
    const { flow, cookie } = await browser();
    const big = form({ csrf: csrfToken(flow, "bank"), pad: "a".repeat(DEFAULT_BODY_LIMIT) });
    const answer = await guardFlowPost(post(big, { cookie }), BANK_FORM);
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(413);
    expect((answer as Response).headers.get("content-type")).toBe("text/plain; charset=utf-8");
    seen.add("body_too_large");
    // A declared length over the limit is refused before a byte is read.
    const declared = new Request(`${ISSUER}/setup/key`, {
      method: "POST",
      headers: {
        Origin: ISSUER,
        Cookie: cookie,
        "Content-Type": "application/json",
        "Content-Length": String(DEFAULT_BODY_LIMIT + 1),
      },
      body: "{}",
    });
    expect(((await guardFlowPost(declared, KEY_JSON)) as Response).status).toBe(413);
  });

  it("refuses a body that is not what the post is made with, or does not parse", async () => {
    const { flow, cookie } = await browser();
    const csrf = csrfToken(flow, "bank");
    for (const contentType of [
      null,
      "text/plain",
      "multipart/form-data; boundary=x",
      "application/json",
    ]) {
      await expectBare(
        await guardFlowPost(post(form({ csrf }), { cookie, contentType }), BANK_FORM),
        "invalid_body",
      );
    }
    const keyCsrf = csrfToken(flow, "key-setup");
    for (const body of ["{", `{"csrf":"${keyCsrf}"`, "[]", "null", `"${keyCsrf}"`, "1"]) {
      await expectJson(
        await guardFlowPost(post(body, { cookie, contentType: "application/json" }), KEY_JSON),
        "invalid_body",
      );
    }
    await expectJson(
      await guardFlowPost(post(form({ csrf: keyCsrf }), { cookie }), KEY_JSON),
      "invalid_body",
    );
  });

  it("needs a sign-in form's flow token only inside a flow; an ended flow's token is said to be over", async () => {
    const { flow, flowCookie } = await browser();
    const loginPost = (fields: Record<string, string>, cookie?: string) =>
      post(form(fields), { path: "/login/request", cookie });
    const without = await guardFlowPost(loginPost({ email: "a@example.com" }), SIGN_IN_FORM);
    expect(without).not.toBeInstanceOf(Response);
    await expectBare(
      await guardFlowPost(loginPost({ csrf: "forged" }, flowCookie), SIGN_IN_FORM),
      "invalid_csrf",
    );
    await db().flow.update({
      where: { id: flow.id },
      data: { completedAt: new Date(), step: "done" },
    });
    await expectScreen(
      await guardFlowPost(loginPost({ csrf: csrfToken(flow, "login") }, flowCookie), SIGN_IN_FORM),
      "flow_ended",
      FLOW_ENDED_PATH,
    );
  });

  it("checks the session's own sign-out token, and none when nobody is signed in", async () => {
    const { sessionCookie } = await browser();
    const session = (await findSignedInUser(
      new Request(ISSUER, { headers: { cookie: sessionCookie } }),
    )) as SignedInUser;
    const signOut = (csrf: string, cookie?: string) =>
      guardFlowPost(post(form({ csrf }), { path: "/logout", cookie }), SIGN_OUT_FORM);
    const other = await browser();
    const otherSession = (await findSignedInUser(
      new Request(ISSUER, { headers: { cookie: other.sessionCookie } }),
    )) as SignedInUser;
    await expectBare(await signOut(signOutToken(otherSession), sessionCookie), "invalid_csrf");
    await expectBare(await signOut("", sessionCookie), "invalid_csrf");
    expect(await signOut(signOutToken(session), sessionCookie)).not.toBeInstanceOf(Response);
    expect(await signOut("")).not.toBeInstanceOf(Response);
  });
});

describe("the flow posts answer through the table", () => {
  it("the sign-in form refuses a forged token with a bare 403 and sends no mail", async () => {
    const { flowCookie } = await browser();
    const email = `guard-${Date.now()}@example.com`;
    const answer = await handleLoginRequest(
      post(form({ email, csrf: "forged" }), { path: "/login/request", cookie: flowCookie }),
    );
    await expectBare(answer, "invalid_csrf");
    expect(await db().outboxMessage.count({ where: { to: email } })).toBe(0);
  });

  it("Back to the partner answers in the OAuth error body under /oauth/, and sends an ended flow on", async () => {
    const { flow, flowCookie } = await browser();
    const cancel = (fields: Record<string, string>, options: PostOptions = {}) =>
      handleCancelRequest(
        post(form(fields), { path: "/oauth/cancel", cookie: flowCookie, ...options }),
      );
    const expectOAuth = async (answer: Response, reason: FlowRefusal) => {
      expect(answer.status).toBe(FLOW_REFUSALS[reason].status);
      expect(await answer.json()).toEqual({
        error: "invalid_request",
        error_description: FLOW_REFUSALS[reason].description,
      });
    };
    await expectOAuth(await cancel({ csrf: "forged" }), "invalid_csrf");
    await expectOAuth(
      await cancel({ csrf: csrfToken(flow, "cancel") }, { origin: "https://evil.example" }),
      "cross_origin",
    );
    await expectOAuth(
      await cancel({ csrf: csrfToken(flow, "cancel") }, { contentType: "application/json" }),
      "invalid_body",
    );
    await expectScreen(
      await cancel({ csrf: csrfToken(flow, "cancel") }, { cookie: "" }),
      "no_flow",
      FLOW_ENDED_PATH,
    );
  });

  it("consent answers a form post with a screen and the script with JSON", async () => {
    const { flow, cookie } = await browser("key_setup");
    await expectScreen(
      await handleConsentApprove(
        post(form({ csrf: csrfToken(flow, "approve") }), { path: "/consent/approve", cookie }),
      ),
      "wrong_step",
      "/setup",
    );
    await expectJson(
      await handleConsentApprove(
        json(
          { csrf: csrfToken(flow, "approve"), publicKey: "k" },
          { path: "/consent/approve", cookie },
        ),
      ),
      "wrong_step",
      "/setup",
    );
    // A forged form is refused in the JSON error body the consent post documents.
    await expectJson(
      await handleConsentApprove(
        post(form({ csrf: "forged" }), { path: "/consent/approve", cookie }),
      ),
      "invalid_csrf",
    );
    await expectJson(
      await handleConsentApprove(
        post("csrf=x", { path: "/consent/approve", cookie, contentType: "text/plain" }),
      ),
      "invalid_body",
    );
  });

  it("key setup refuses a key that is not a P-256 point, and another key once one is registered", async () => {
    const { flow, user, cookie } = await browser("key_setup");
    const register = (publicKey: string) =>
      handleKeyRegistration(
        json({ csrf: csrfToken(flow, "key-setup"), publicKey }, { path: "/setup/key", cookie }),
      );
    await expectJson(await register("not a key"), "invalid_key");
    await db().user.update({
      where: { id: user.id },
      data: { publicKey: generateKeyPair().publicKeyRawB64 },
    });
    await expectJson(await register(generateKeyPair().publicKeyRawB64), "key_mismatch");
  });

  it("every door refusal of the table was produced above by a real request", () => {
    const door: FlowRefusal[] = [
      "cross_origin",
      "invalid_body",
      "body_too_large",
      "no_flow",
      "flow_ended",
      "signed_out",
      "invalid_csrf",
      "stale_tab",
      "wrong_step",
    ];
    expect(door.filter((reason) => !seen.has(reason))).toEqual([]);
    expect(Object.keys(FLOW_REFUSALS)).toEqual(expect.arrayContaining(door));
  });
});
