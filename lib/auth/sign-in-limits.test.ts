import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { handleLoginRequest } from "../flow/login";
import { CLIENT_IP_HEADER } from "../http/client-ip";
import { redisStore, replaceRateLimitStore } from "../ratelimit/limiter";
import type { RateLimitStore } from "../ratelimit/store";
import { ISSUER, uniqueEmail } from "../../test/oauth-fixtures";
import { atWindowStart } from "../../test/rate-windows";
import {
  askForCode,
  checkedAttempts,
  DAY,
  guess,
  later,
  loginRequest,
  MINUTE,
  uniqueClientIp,
  wrongPin,
} from "../../test/sign-in-fixtures";
import { loginNonceCookieName, requestLoginChallenge } from "./login-challenges";

/**
 * The limits that guard a sign-in secret (mails, PIN checks) are counted in
 * PostgreSQL, so they hold whatever happens to the rate-limit store, which
 * fails open for traffic limits. Each case runs with the process's store
 * broken in two ways: a store that throws, and Redis that cannot be reached.
 */

const throwingStore: RateLimitStore = {
  name: "throwing",
  hit: () => Promise.reject(new Error("connection refused")),
};

// Fixed windows are aligned to the epoch; start 5 s into a 15-minute window.
const windowStart = Math.ceil(Date.now() / (15 * MINUTE)) * 15 * MINUTE + 5_000;
const at = (ms: number) => new Date(windowStart + ms);

const countMails = (email: string) => db().outboxMessage.count({ where: { to: email } });

describe.each([
  ["a rate-limit store that throws", () => throwingStore],
  ["Redis unreachable (port 1)", () => redisStore("redis://127.0.0.1:1", 300)],
])("sign-in limits hold with %s", (_label, brokenStore) => {
  beforeAll(() => replaceRateLimitStore(brokenStore()));
  afterAll(() => replaceRateLimitStore(undefined));

  it("refuses the 2nd mail to one address within a minute", async () => {
    const request = loginRequest({ now: at(0) });
    expect(await requestLoginChallenge(request)).toEqual({ status: "sent" });
    const again = { ...loginRequest({ email: request.email }), now: at(10_000) };
    expect(await requestLoginChallenge(again)).toEqual({
      status: "throttled",
      retryAfterSeconds: 45,
    });
    expect(await countMails(request.email)).toBe(1);
  });

  it("refuses the 6th mail to one address within 15 minutes", async () => {
    const email = uniqueEmail("six");
    for (let minute = 0; minute < 5; minute += 1) {
      const request = loginRequest({ email, now: at(minute * MINUTE) });
      expect(await requestLoginChallenge(request)).toEqual({ status: "sent" });
    }
    expect(await requestLoginChallenge(loginRequest({ email, now: at(5 * MINUTE) }))).toEqual({
      status: "throttled",
      retryAfterSeconds: 15 * 60 - 5 - 5 * 60,
    });
    expect(await countMails(email)).toBe(5);
  });

  it("refuses the 31st mail request from one client address in a minute", async () => {
    const clientIp = uniqueClientIp();
    for (let i = 0; i < 30; i += 1) {
      const result = await requestLoginChallenge(loginRequest({ clientIp, now: at(i * 1000) }));
      expect(result.status).toBe("sent");
    }
    const last = loginRequest({ clientIp, now: at(30_000) });
    expect(await requestLoginChallenge(last)).toEqual({
      status: "throttled",
      retryAfterSeconds: 60 - 35,
    });
    expect(await countMails(last.email)).toBe(0);
  });

  it("refuses PIN guesses beyond the address's daily ceiling, even across new challenges", async () => {
    const first = await askForCode({ now: at(0) });
    const second = await askForCode({ email: first.email, now: at(MINUTE) });
    const third = await askForCode({ email: first.email, now: at(2 * MINUTE) });
    for (let i = 1; i <= 5; i += 1) await guess(first, wrongPin(first.pin, i));
    for (let i = 1; i <= 5; i += 1) await guess(second, wrongPin(second.pin, i));
    expect(await guess(third, third.pin)).toEqual({
      status: "pin_closed",
      retryAfterSeconds: DAY / 1000 - 60,
    });
    expect(await checkedAttempts([first.email])).toBe(10);
  });

  it("answers the login form with the seconds to wait", async () => {
    await atWindowStart();
    const email = uniqueEmail("form");
    const clientIp = uniqueClientIp();
    const post = (path: string, fields: Record<string, string>, cookie?: string) =>
      new Request(`${ISSUER}${path}`, {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Origin: ISSUER,
          [CLIENT_IP_HEADER]: clientIp,
          ...(cookie && { Cookie: cookie }),
        },
        body: new URLSearchParams(fields).toString(),
      });
    const sent = await handleLoginRequest(post("/login/request", { email }));
    expect(sent.headers.get("Location")).not.toContain("error=");
    const cookie = (sent.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
    expect(cookie.startsWith(`${loginNonceCookieName()}=`)).toBe(true);

    const again = await handleLoginRequest(post("/login/request", { email }, cookie));
    const location = new URL(again.headers.get("Location") ?? "", ISSUER);
    expect(location.searchParams.get("error")).toBe("throttled");
    expect(Number(location.searchParams.get("retry"))).toBeGreaterThan(0);

    expect(await countMails(email)).toBe(1);
  });
});

describe("a request that started in a window the clock has since left", () => {
  it("is still counted against that window's earlier mails", async () => {
    // A slow request carries its start time past the end of its window: the
    // clearing of finished windows must not have thrown that window's count away.
    const email = uniqueEmail("late");
    const lastMinute = new Date((Math.floor(Date.now() / MINUTE) - 1) * MINUTE + 30_000);
    const first = await requestLoginChallenge(loginRequest({ email, now: lastMinute }));
    const late = await requestLoginChallenge(loginRequest({ email, now: later(lastMinute, 1000) }));
    expect(first).toEqual({ status: "sent" });
    expect(late).toMatchObject({ status: "throttled" });
    expect(await countMails(email)).toBe(1);
  });
});

describe("concurrent sign-in requests cannot overshoot a limit", () => {
  it("sends one mail for ten simultaneous requests for one address", async () => {
    const email = uniqueEmail("burst");
    const now = at(20 * MINUTE);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => requestLoginChallenge(loginRequest({ email, now }))),
    );
    expect(results.filter((result) => result.status === "sent")).toHaveLength(1);
    expect(await countMails(email)).toBe(1);
  });

  it("sends 30 mails for 40 simultaneous requests from one client address", async () => {
    const clientIp = uniqueClientIp();
    const now = at(21 * MINUTE);
    const requests = Array.from({ length: 40 }, () => loginRequest({ clientIp, now }));
    const results = await Promise.all(requests.map((request) => requestLoginChallenge(request)));
    expect(results.filter((result) => result.status === "sent")).toHaveLength(30);
    const mails = await db().outboxMessage.count({
      where: { to: { in: requests.map((request) => request.email) } },
    });
    expect(mails).toBe(30);
  });

  it("checks 10 of 15 simultaneous guesses at one address spread over three challenges", async () => {
    const email = uniqueEmail("parallel");
    const challenges = [
      await askForCode({ email, now: at(30 * MINUTE) }),
      await askForCode({ email, now: at(31 * MINUTE) }),
      await askForCode({ email, now: at(32 * MINUTE) }),
    ];
    const now = later(at(32 * MINUTE), 1000);
    const results = await Promise.all(
      challenges.flatMap((asked) =>
        Array.from({ length: 5 }, (_, i) => guess(asked, wrongPin(asked.pin, i + 1), { now })),
      ),
    );
    expect(await checkedAttempts([email])).toBe(10);
    expect(results.filter((result) => result.status === "pin_closed").length).toBeGreaterThan(0);
  });
});
