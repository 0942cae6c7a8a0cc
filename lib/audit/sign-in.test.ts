import { describe, expect, it } from "vitest";
import { loginNonceCookieName } from "../auth/login-challenges";
import { db } from "../db/client";
import { csrfToken } from "../flow/csrf";
import { handleLinkConfirm, handleLoginCode, handleLoginRequest } from "../flow/login";
import { findLastMessage } from "../mail";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  startTestFlow,
  uniqueEmail,
} from "../../test/oauth-fixtures";
import { eventsFrom, expectNoSecrets, fromAddress, uniqueAddress } from "../../test/audit";

/** Sign-in events (docs/audit-log.md), through the screens' own form handlers. */

function formPost(path: string, body: Record<string, string>, headers: Record<string, string>) {
  return new Request(`${ISSUER}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: ISSUER, ...headers },
    body: new URLSearchParams(body).toString(),
  });
}

const cookiePair = (setCookie: string | undefined) => (setCookie ?? "").split(";")[0] ?? "";

/** Asks for a sign-in mail from `address`; returns the browser's cookies, the PIN and the link token. */
async function requestSignIn(
  email: string,
  address: string,
  flow?: { cookie: string; csrf: string },
) {
  const response = await handleLoginRequest(
    formPost(
      "/login/request",
      { email, ...(flow ? { csrf: flow.csrf } : {}) },
      {
        ...fromAddress(address),
        ...(flow ? { Cookie: flow.cookie } : {}),
      },
    ),
  );
  expect(response.status).toBe(303);
  const nonce = cookiePair(
    response.headers.getSetCookie().find((cookie) => cookie.startsWith(loginNonceCookieName())),
  );
  const mail = await findLastMessage(email);
  const token = new URL(mail?.link ?? "http://x/").searchParams.get("token") ?? "";
  const cookie = flow ? `${flow.cookie}; ${nonce}` : nonce;
  return { cookie, pin: mail?.code ?? "", token };
}

const typePin = (email: string, code: string, cookie: string, address: string, csrf?: string) =>
  handleLoginCode(
    formPost(
      "/login/code",
      { email, code, ...(csrf ? { csrf } : {}) },
      {
        Cookie: cookie,
        ...fromAddress(address),
      },
    ),
  );

const confirmLink = (token: string, cookie: string | null, address: string) =>
  handleLinkConfirm(
    formPost(
      "/login/link/confirm",
      { token },
      {
        ...(cookie ? { Cookie: cookie } : {}),
        ...fromAddress(address),
      },
    ),
  );

const wrongPin = (pin: string) => (pin === "000000" ? "111111" : "000000");

describe("sign-in events", () => {
  it("a PIN sign-in in a flow records one sign_in.succeeded: the user, the address, no PIN or email", async () => {
    const client = await createTestClient();
    const { flowId, setCookie } = await startTestFlow(client);
    const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
    const browser = { cookie: cookiePair(setCookie), csrf: csrfToken(flow, "login") };
    const email = uniqueEmail("pin-ok");
    const address = uniqueAddress();
    const { cookie, pin, token } = await requestSignIn(email, address, browser);

    const response = await typePin(email, pin, cookie, address, browser.csrf);
    expect(response.status).toBe(303);

    const user = await db().user.findUniqueOrThrow({ where: { email } });
    const events = await eventsFrom(address);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "sign_in.succeeded",
      actorKind: "user",
      actorId: user.id,
      userId: user.id,
      partnerId: null,
      clientIp: address,
      subject: null,
      details: { method: "pin", inFlow: true },
    });
    expectNoSecrets(events, [pin, token, email]);
  });

  it("each wrong PIN records sign_in.failed with the attempts left, the 5th sign_in.locked, later tries locked", async () => {
    const user = await createTestUser(uniqueEmail("pin-lock"));
    const address = uniqueAddress();
    const { cookie, pin, token } = await requestSignIn(user.email, address);
    for (let i = 0; i < 6; i += 1) await typePin(user.email, wrongPin(pin), cookie, address);
    // The right PIN cannot sign in once locked.
    await typePin(user.email, pin, cookie, address);

    const events = await eventsFrom(address);
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ["sign_in.failed", { method: "pin", reason: "wrong_pin", attemptsLeft: 4 }],
      ["sign_in.failed", { method: "pin", reason: "wrong_pin", attemptsLeft: 3 }],
      ["sign_in.failed", { method: "pin", reason: "wrong_pin", attemptsLeft: 2 }],
      ["sign_in.failed", { method: "pin", reason: "wrong_pin", attemptsLeft: 1 }],
      ["sign_in.locked", { method: "pin" }],
      ["sign_in.failed", { method: "pin", reason: "locked" }],
      ["sign_in.failed", { method: "pin", reason: "locked" }],
    ]);
    for (const event of events) {
      expect(event).toMatchObject({
        actorKind: "anonymous",
        actorId: null,
        userId: user.id,
        partnerId: null,
        clientIp: address,
      });
    }
    expectNoSecrets(events, [pin, wrongPin(pin), token, user.email]);
  });

  it("a link from another browser, a used and an expired link record sign_in.failed with the reason", async () => {
    const user = await createTestUser(uniqueEmail("link"));
    const address = uniqueAddress();
    const { cookie, pin, token } = await requestSignIn(user.email, address);

    await confirmLink(token, null, address);
    const signedIn = await confirmLink(token, cookie, address);
    expect(signedIn.headers.getSetCookie().length).toBeGreaterThan(0);
    await confirmLink(token, cookie, address);

    // Another person's link, left until it expired (one mail a minute per address).
    const late = await createTestUser(uniqueEmail("late"));
    const second = await requestSignIn(late.email, address);
    await db().loginChallenge.updateMany({
      where: { email: late.email },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await confirmLink(second.token, second.cookie, address);
    await confirmLink("A".repeat(43), second.cookie, address);

    const events = await eventsFrom(address);
    expect(events.map((event) => [event.type, event.details, event.userId])).toEqual([
      ["sign_in.failed", { method: "link", reason: "other_browser" }, user.id],
      ["sign_in.succeeded", { method: "link", inFlow: false }, user.id],
      ["sign_in.failed", { method: "link", reason: "used" }, user.id],
      ["sign_in.failed", { method: "link", reason: "expired" }, late.id],
      // A token that names no challenge names no one.
      ["sign_in.failed", { method: "link", reason: "unknown" }, null],
    ]);
    expectNoSecrets(events, [pin, token, second.token, second.pin, user.email, late.email]);
  });

  it("a refusal for an address with no account names no user and keeps no trace of the address", async () => {
    const email = uniqueEmail("nobody");
    const address = uniqueAddress();
    const { cookie, pin } = await requestSignIn(email, address);
    await typePin(email, wrongPin(pin), cookie, address);

    const events = await eventsFrom(address);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "sign_in.failed",
      actorKind: "anonymous",
      userId: null,
      details: { method: "pin", reason: "wrong_pin", attemptsLeft: 4 },
    });
    expectNoSecrets(events, [email, email.split("@")[0], pin]);
    expect(await db().user.findUnique({ where: { email } })).toBeNull();
  });
});
