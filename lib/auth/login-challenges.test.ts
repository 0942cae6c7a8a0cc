import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { keyedHash } from "../crypto/keyed-hash";
import { db } from "../db/client";
import { getEnv } from "../env";
import { findLastMessage } from "../mail";
import { createTestUser, uniqueEmail } from "../../test/oauth-fixtures";
import {
  confirmLoginLink,
  findLinkFlowId,
  inspectLoginLink,
  LOGIN_CHALLENGE_LIFETIME_MINUTES,
  newBrowserNonce,
  requestLoginChallenge,
  verifyLoginPin,
  type LoginRequest,
} from "./login-challenges";

const MINUTE = 60_000;
const LIFETIME_MS = LOGIN_CHALLENGE_LIFETIME_MINUTES * MINUTE;
const uniqueIp = () => `203.0.113.${randomBytes(1)[0]}-${randomBytes(4).toString("hex")}`;

function loginRequest(overrides: Partial<LoginRequest> = {}): LoginRequest {
  return {
    email: uniqueEmail("login"),
    locale: "en",
    partnerName: "Acme Budget",
    flowId: null,
    returnUrl: "/oauth/authorize?client_id=obc_x",
    browserNonce: newBrowserNonce(),
    clientIp: uniqueIp(),
    ...overrides,
  };
}

/**
 * Requests a challenge and reads the mail it sent. The sign-in limits count
 * in the database: a second request for one address comes a minute later.
 */
async function requestAndRead(overrides: Partial<LoginRequest> = {}) {
  const request = loginRequest(overrides);
  const now = request.now ?? new Date();
  expect(await requestLoginChallenge({ ...request, now })).toEqual({
    status: "sent",
  });
  const mail = await findLastMessage(request.email);
  const token = new URL(mail?.link ?? "http://x/").searchParams.get("token") ?? "";
  return { ...request, now, mail, token, pin: mail?.code ?? "" };
}

const later = (now: Date, ms: number) => new Date(now.getTime() + ms);
const otherPin = (pin: string) => String((Number(pin) + 1) % 1_000_000).padStart(6, "0");

describe("requesting a sign-in (docs/protocol.md#sign-in)", () => {
  it("mails one message with the magic link and the code, and stores only keyed hashes", async () => {
    const request = loginRequest({ email: `  ${uniqueEmail("Mixed").toUpperCase()} ` });
    // The configured limiter, as the service uses it.
    expect(await requestLoginChallenge(request)).toEqual({ status: "sent" });
    const email = request.email.trim().toLowerCase();

    const mail = await findLastMessage(email);
    expect(mail?.to).toBe(email);
    expect(mail?.link).toMatch(
      new RegExp(`^${getEnv().issuer}/login/link\\?token=[A-Za-z0-9_-]{43}$`),
    );
    expect(mail?.code).toMatch(/^\d{6}$/);
    expect(mail?.text).toContain(mail?.link);
    expect(mail?.text).toContain(mail?.code);
    expect(mail?.html).toContain(mail?.code);
    expect(mail?.subject).toContain("Acme Budget");

    const token = new URL(mail?.link ?? "").searchParams.get("token") ?? "";
    const stored = await db().loginChallenge.findMany({ where: { email } });
    expect(stored).toHaveLength(1);
    const [challenge] = stored;
    expect(challenge?.linkTokenHash).toBe(keyedHash("link-token", token));
    expect(challenge?.pinHash).toBe(keyedHash("pin", `${challenge?.id}:${mail?.code}`));
    expect(challenge?.browserHash).toBe(keyedHash("browser-nonce", request.browserNonce));
    expect(challenge?.returnUrl).toBe(request.returnUrl);
    expect(challenge?.attempts).toBe(0);
    expect(challenge?.consumedAt).toBeNull();
    expect(challenge!.expiresAt.getTime() - challenge!.createdAt.getTime()).toBe(LIFETIME_MS);
    expect(JSON.stringify(challenge)).not.toContain(token);
    expect(await db().outboxMessage.count({ where: { to: email } })).toBe(1);
  });

  it("answers invalid_email for a malformed address and sends nothing", async () => {
    const result = await requestLoginChallenge(loginRequest({ email: "not an address" }));
    expect(result).toEqual({ status: "invalid_email" });
    expect(await findLastMessage("not an address")).toBeNull();
  });

  it("behaves the same for unknown and known emails, and creates the user only at sign-in", async () => {
    const known = await createTestUser(uniqueEmail("known"));
    const unknownEmail = uniqueEmail("unknown");
    const now = new Date();
    const clientIp = uniqueIp();
    const ask = (email: string) => requestLoginChallenge(loginRequest({ email, now, clientIp }));

    expect(await ask(known.email)).toEqual(await ask(unknownEmail));
    // Asked again within the minute: throttled, identically.
    expect(await ask(known.email)).toEqual(await ask(unknownEmail));
    const [knownMail, unknownMail] = await Promise.all([
      findLastMessage(known.email),
      findLastMessage(unknownEmail),
    ]);
    expect(knownMail?.subject).toBe(unknownMail?.subject);
    expect(await db().user.findUnique({ where: { email: unknownEmail } })).toBeNull();
  });
});

describe("the magic link: scanner-safe, single use, same browser", () => {
  it("is inspected any number of times without being consumed", async () => {
    const asked = await requestAndRead();
    for (let i = 0; i < 3; i += 1) {
      expect(await inspectLoginLink(asked.token, asked.now)).toEqual({
        status: "valid",
        sameBrowserRequired: true,
        email: asked.email,
      });
    }
    const result = await confirmLoginLink({ token: asked.token, browserNonce: asked.browserNonce });
    expect(result).toMatchObject({ status: "ok", returnUrl: asked.returnUrl, flowId: null });
  });

  it("signs in once: a second confirmation and a later inspection say used", async () => {
    const asked = await requestAndRead();
    const first = await confirmLoginLink({ token: asked.token, browserNonce: asked.browserNonce });
    expect(first.status).toBe("ok");
    const user = await db().user.findUniqueOrThrow({ where: { email: asked.email } });
    expect(first).toMatchObject({ userId: user.id });

    expect(
      await confirmLoginLink({ token: asked.token, browserNonce: asked.browserNonce }),
    ).toEqual({ status: "used" });
    expect(await inspectLoginLink(asked.token)).toEqual({ status: "used" });
    // The PIN of a used challenge is gone too.
    expect(
      await verifyLoginPin({
        email: asked.email,
        pin: asked.pin,
        browserNonce: asked.browserNonce,
        clientIp: asked.clientIp,
      }),
    ).toEqual({ status: "expired" });
  });

  it("tells on opening that the link is in another browser, without using it", async () => {
    const asked = await requestAndRead({ flowId: null });
    const email = asked.email.trim().toLowerCase();
    expect(await inspectLoginLink(asked.token, asked.now, newBrowserNonce())).toEqual({
      status: "other_browser",
      email,
    });
    expect(await inspectLoginLink(asked.token, asked.now, null)).toEqual({
      status: "other_browser",
      email,
    });
    expect(await inspectLoginLink(asked.token, asked.now, asked.browserNonce)).toEqual({
      status: "valid",
      sameBrowserRequired: true,
      email,
    });
    // A closed link says why, in any browser; looking consumed nothing.
    expect(await findLinkFlowId(asked.token)).toBeNull();
    expect(
      (await confirmLoginLink({ token: asked.token, browserNonce: asked.browserNonce })).status,
    ).toBe("ok");
    expect(await inspectLoginLink(asked.token, asked.now, newBrowserNonce())).toEqual({
      status: "used",
    });
  });

  it("refuses another browser and keeps working in the one that asked", async () => {
    const asked = await requestAndRead();
    expect(await confirmLoginLink({ token: asked.token, browserNonce: newBrowserNonce() })).toEqual(
      {
        status: "other_browser",
      },
    );
    expect(await confirmLoginLink({ token: asked.token, browserNonce: null })).toEqual({
      status: "other_browser",
    });
    expect(await inspectLoginLink(asked.token)).toMatchObject({ status: "valid" });
    expect(
      (await confirmLoginLink({ token: asked.token, browserNonce: asked.browserNonce })).status,
    ).toBe("ok");
  });

  it("expires after 15 minutes", async () => {
    const asked = await requestAndRead();
    const justBefore = later(asked.now, LIFETIME_MS - 1000);
    const atExpiry = later(asked.now, LIFETIME_MS);
    expect((await inspectLoginLink(asked.token, justBefore)).status).toBe("valid");
    expect(await inspectLoginLink(asked.token, atExpiry)).toEqual({ status: "expired" });
    expect(
      await confirmLoginLink({
        token: asked.token,
        browserNonce: asked.browserNonce,
        now: atExpiry,
      }),
    ).toEqual({ status: "expired" });
  });

  it("does not know made-up or malformed tokens", async () => {
    expect(await inspectLoginLink(randomBytes(32).toString("base64url"))).toEqual({
      status: "unknown",
    });
    expect(await inspectLoginLink("")).toEqual({ status: "unknown" });
    expect(await confirmLoginLink({ token: "x'; DROP TABLE", browserNonce: "n" })).toEqual({
      status: "unknown",
    });
  });

  it("lets exactly one of many concurrent confirmations sign in (docs/architecture.md#concurrency-tests-for-invariants)", async () => {
    const asked = await requestAndRead();
    const results = await Promise.all([
      ...Array.from({ length: 8 }, () =>
        confirmLoginLink({ token: asked.token, browserNonce: asked.browserNonce }),
      ),
      ...Array.from({ length: 4 }, () =>
        verifyLoginPin({
          email: asked.email,
          pin: asked.pin,
          browserNonce: asked.browserNonce,
          clientIp: asked.clientIp,
        }),
      ),
    ]);
    expect(results.filter((result) => result.status === "ok")).toHaveLength(1);
    expect(await db().user.count({ where: { email: asked.email } })).toBe(1);
  });

  it("signs in one user when two browsers of a new address confirm at once", async () => {
    const email = uniqueEmail("twice");
    const first = await requestAndRead({ email });
    const second = await requestAndRead({ email, now: later(first.now, MINUTE) });
    const results = await Promise.all([
      confirmLoginLink({ token: first.token, browserNonce: first.browserNonce }),
      confirmLoginLink({ token: second.token, browserNonce: second.browserNonce }),
    ]);
    expect(results.map((result) => result.status)).toEqual(["ok", "ok"]);
    const ids = results.map((result) => (result.status === "ok" ? result.userId : null));
    expect(ids[0]).toBe(ids[1]);
  });
});

describe("the typed code (challenge=pin_code, /docs/errors)", () => {
  it("signs in with the right code, once", async () => {
    const asked = await requestAndRead();
    const pin = {
      email: asked.email,
      pin: asked.pin,
      browserNonce: asked.browserNonce,
      clientIp: asked.clientIp,
    };
    const result = await verifyLoginPin(pin);
    expect(result).toMatchObject({ status: "ok", returnUrl: asked.returnUrl });
    expect(await verifyLoginPin(pin)).toEqual({ status: "expired" });
    expect(await inspectLoginLink(asked.token)).toEqual({ status: "used" });
  });

  it("finds the challenge by the address however it is typed", async () => {
    const asked = await requestAndRead();
    const result = await verifyLoginPin({
      email: ` ${asked.email.toUpperCase()}`,
      pin: asked.pin,
      browserNonce: asked.browserNonce,
      clientIp: asked.clientIp,
    });
    expect(result.status).toBe("ok");
  });

  it("counts wrong codes down and locks at the 5th: the right code then answers locked", async () => {
    const asked = await requestAndRead();
    const wrong = {
      email: asked.email,
      pin: otherPin(asked.pin),
      browserNonce: asked.browserNonce,
      clientIp: asked.clientIp,
    };
    for (const attemptsLeft of [4, 3, 2, 1]) {
      expect(await verifyLoginPin(wrong)).toEqual({ status: "wrong", attemptsLeft });
    }
    expect(await verifyLoginPin(wrong)).toEqual({ status: "locked" });
    expect(
      await verifyLoginPin({
        email: asked.email,
        pin: asked.pin,
        browserNonce: asked.browserNonce,
        clientIp: asked.clientIp,
      }),
    ).toEqual({ status: "locked" });
    const stored = await db().loginChallenge.findFirstOrThrow({ where: { email: asked.email } });
    expect(stored.attempts).toBe(5);
    // The link is a 256-bit secret, not a guess: a PIN lockout leaves it usable.
    expect(
      (await confirmLoginLink({ token: asked.token, browserNonce: asked.browserNonce })).status,
    ).toBe("ok");
  });

  it("checks at most 5 of many concurrent guesses", async () => {
    const asked = await requestAndRead();
    const guesses = Array.from({ length: 20 }, (_, i) =>
      verifyLoginPin({
        email: asked.email,
        pin: otherPin(String((Number(asked.pin) + i) % 1_000_000)),
        browserNonce: asked.browserNonce,
        clientIp: asked.clientIp,
      }),
    );
    const results = await Promise.all(guesses);
    expect(results.filter((result) => result.status === "wrong")).toHaveLength(4);
    expect(results.filter((result) => result.status === "locked")).toHaveLength(16);
    const stored = await db().loginChallenge.findFirstOrThrow({ where: { email: asked.email } });
    expect(stored.attempts).toBe(5);
  });

  it("expires after 15 minutes", async () => {
    const asked = await requestAndRead();
    const pin = {
      email: asked.email,
      pin: asked.pin,
      browserNonce: asked.browserNonce,
      clientIp: asked.clientIp,
    };
    expect(await verifyLoginPin({ ...pin, now: later(asked.now, LIFETIME_MS) })).toEqual({
      status: "expired",
    });
    expect(
      (await verifyLoginPin({ ...pin, now: later(asked.now, LIFETIME_MS - 1000) })).status,
    ).toBe("ok");
  });

  it("only counts for the browser that asked", async () => {
    const asked = await requestAndRead();
    const elsewhere = {
      email: asked.email,
      pin: asked.pin,
      browserNonce: newBrowserNonce(),
      clientIp: asked.clientIp,
    };
    expect(await verifyLoginPin(elsewhere)).toEqual({ status: "expired" });
    expect(await verifyLoginPin({ ...elsewhere, browserNonce: "" })).toEqual({ status: "expired" });
    const stored = await db().loginChallenge.findFirstOrThrow({ where: { email: asked.email } });
    expect(stored.attempts).toBe(0);
  });
});

describe("a new request supersedes older ones of the same browser", () => {
  it("consumes the older challenge: its link says used and its code no longer works", async () => {
    const first = await requestAndRead();
    const second = await requestAndRead({
      email: first.email,
      browserNonce: first.browserNonce,
      now: later(first.now, MINUTE),
    });
    expect(second.token).not.toBe(first.token);
    expect(await inspectLoginLink(first.token)).toEqual({ status: "used" });
    expect((await inspectLoginLink(second.token)).status).toBe("valid");
    if (first.pin !== second.pin) {
      expect(
        await verifyLoginPin({
          email: first.email,
          pin: first.pin,
          browserNonce: first.browserNonce,
          clientIp: first.clientIp,
        }),
      ).toEqual({ status: "wrong", attemptsLeft: 4 });
    }
    expect(
      (
        await verifyLoginPin({
          email: first.email,
          pin: second.pin,
          browserNonce: first.browserNonce,
          clientIp: first.clientIp,
        })
      ).status,
    ).toBe("ok");
  });

  it("leaves another browser's challenge for the same address alone", async () => {
    const first = await requestAndRead();
    await requestAndRead({ email: first.email, now: later(first.now, MINUTE) });
    expect((await inspectLoginLink(first.token)).status).toBe("valid");
  });
});

describe("sign-in mail limits (docs/security.md)", () => {
  // Fixed-window limits are aligned to the epoch; start 5 s into a 15-minute window.
  const windowStart = Math.ceil(Date.now() / (15 * MINUTE)) * 15 * MINUTE + 5_000;
  const at = (ms: number) => new Date(windowStart + ms);

  it("sends one mail a minute per address, with the seconds to wait", async () => {
    const request = loginRequest();
    expect(await requestLoginChallenge({ ...request, now: at(0) })).toEqual({
      status: "sent",
    });
    const other = { ...request, browserNonce: newBrowserNonce(), clientIp: uniqueIp() };
    expect(await requestLoginChallenge({ ...other, now: at(10_000) })).toEqual({
      status: "throttled",
      retryAfterSeconds: 45,
    });
    expect(await requestLoginChallenge({ ...other, now: at(MINUTE) })).toEqual({
      status: "sent",
    });
    expect(await db().outboxMessage.count({ where: { to: request.email } })).toBe(2);
  });

  it("sends at most five mails per address in 15 minutes", async () => {
    const request = loginRequest();
    for (let minute = 0; minute < 5; minute += 1) {
      const result = await requestLoginChallenge({ ...request, now: at(minute * MINUTE) });
      expect(result).toEqual({ status: "sent" });
    }
    expect(await requestLoginChallenge({ ...request, now: at(5 * MINUTE) })).toEqual({
      status: "throttled",
      retryAfterSeconds: 15 * 60 - 5 - 5 * 60,
    });
  });

  it("accepts at most 30 requests per client IP in a minute, whatever the address", async () => {
    const clientIp = uniqueIp();
    for (let i = 0; i < 30; i += 1) {
      const result = await requestLoginChallenge(loginRequest({ clientIp, now: at(i * 1000) }));
      expect(result.status).toBe("sent");
    }
    expect(await requestLoginChallenge(loginRequest({ clientIp, now: at(30_000) }))).toEqual({
      status: "throttled",
      retryAfterSeconds: 60 - 35,
    });
    expect((await requestLoginChallenge(loginRequest({ now: at(30_000) }))).status).toBe("sent");
  });
});
