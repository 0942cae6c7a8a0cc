import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { handleLoginCode } from "../flow/login";
import { CLIENT_IP_HEADER } from "../http/client-ip";
import { ISSUER, uniqueEmail } from "../../test/oauth-fixtures";
import {
  askForCode,
  checkedAttempts,
  DAY,
  guess,
  HOUR,
  later,
  MINUTE,
  uniqueClientIp,
  wrongPin,
  type AskedCode,
} from "../../test/sign-in-fixtures";
import { confirmLoginLink, loginNonceCookieName } from "./login-challenges";
import { PIN_BUDGET, pinBudgetKeys, recordWrongPin } from "./pin-budget";
import { addressKey, clientKey, ipv6Prefix64 } from "./sign-in-limits";

const SECONDS_PER_DAY = DAY / 1000;

/** Two challenges a minute apart and 10 wrong codes between them: one day's budget. */
async function spendADay(email: string, start: Date) {
  const first = await askForCode({ email, now: start });
  const second = await askForCode({ email, now: later(start, MINUTE) });
  const results = [];
  for (let i = 1; i <= 5; i += 1) results.push(await guess(first, wrongPin(first.pin, i)));
  for (let i = 1; i <= 5; i += 1) results.push(await guess(second, wrongPin(second.pin, i)));
  return { results, closedAt: second.now };
}

/** Challenges for `count` addresses, each asked for from a client address of its own. */
const challengesFor = (count: number, now = new Date()) =>
  Promise.all(Array.from({ length: count }, () => askForCode({ now })));

/**
 * A wrong code the address's own person typed a minute before, from their
 * own client address, at another challenge: the client address ceiling
 * refuses only addresses with a failure of their own.
 */
async function typoOfItsOwn(asked: AskedCode, now = asked.now) {
  const keys = pinBudgetKeys(asked.email, asked.clientIp);
  await db().$transaction((tx) => recordWrongPin(tx, keys, later(now, -MINUTE)));
}

/** Challenges for `count` addresses that each had a wrong code of their own. */
async function typedChallengesFor(count: number, now = new Date()) {
  const challenges = await challengesFor(count, now);
  for (const asked of challenges) await typoOfItsOwn(asked);
  return challenges;
}

/** Five wrong codes at each challenge, in turn, from `clientIp`. */
async function guessWrong(challenges: AskedCode[], clientIp: string, now: Date) {
  const results = [];
  for (const asked of challenges) {
    for (let i = 1; i <= 5; i += 1) {
      results.push(await guess(asked, wrongPin(asked.pin, i), { clientIp, now }));
    }
  }
  return results;
}

describe("the PIN guess budget per address", () => {
  it("closes the PIN path at the 10th wrong code in a day; the link still signs in", async () => {
    const base = new Date();
    const email = uniqueEmail("daily");
    const first = await askForCode({ email, now: base });
    const second = await askForCode({ email, now: later(base, MINUTE) });
    const third = await askForCode({ email, now: later(base, 2 * MINUTE) });

    const firstResults = [];
    for (let i = 1; i <= 5; i += 1) firstResults.push(await guess(first, wrongPin(first.pin, i)));
    expect(firstResults.map((result) => result.status)).toEqual([
      ...Array<string>(4).fill("wrong"),
      "locked",
    ]);
    // The tries left are the fewest of the challenge's and the address's day.
    for (const attemptsLeft of [4, 3, 2, 1]) {
      expect(await guess(second, wrongPin(second.pin, attemptsLeft))).toEqual({
        status: "wrong",
        attemptsLeft,
      });
    }
    expect(await guess(second, wrongPin(second.pin, 9))).toEqual({
      status: "pin_closed",
      retryAfterSeconds: SECONDS_PER_DAY,
    });

    // Even the right code of a fresh challenge is refused unchecked, and costs it nothing.
    expect(await guess(third, third.pin)).toEqual({
      status: "pin_closed",
      retryAfterSeconds: SECONDS_PER_DAY - 60,
    });
    expect(await checkedAttempts([email])).toBe(10);
    const link = await confirmLoginLink({
      token: third.token,
      browserNonce: third.browserNonce,
      now: third.now,
    });
    expect(link.status).toBe("ok");

    const nextDay = await askForCode({ email, now: later(second.now, DAY) });
    expect((await guess(nextDay, nextDay.pin)).status).toBe("ok");
  });

  it("doubles each closure: 24 h, then 48 h, then 96 h, and forgets a year after the last", async () => {
    const email = uniqueEmail("backoff");
    let start = new Date();
    const lengths = [];
    for (let closure = 0; closure < 3; closure += 1) {
      const { results, closedAt } = await spendADay(email, start);
      const last = results.at(-1);
      expect(last?.status).toBe("pin_closed");
      const seconds = last && "retryAfterSeconds" in last ? last.retryAfterSeconds : 0;
      lengths.push(seconds / SECONDS_PER_DAY);
      start = later(closedAt, seconds * 1000);
    }
    expect(lengths).toEqual([1, 2, 4]);

    // A year after the last closure ended, the next one is 24 h again.
    const { results } = await spendADay(email, later(start, 365 * DAY));
    expect(results.at(-1)).toEqual({ status: "pin_closed", retryAfterSeconds: SECONDS_PER_DAY });
  });

  it("refuses beyond 100 wrong codes in a year, however slowly they come", async () => {
    const email = uniqueEmail("yearly");
    const base = new Date();
    const checked = [];
    // Nine a day (a day and an hour apart) never fill a day; the year fills on the 12th.
    const step = DAY + HOUR;
    for (let day = 0; day < 12; day += 1) {
      const first = await askForCode({ email, now: later(base, day * step) });
      const second = await askForCode({ email, now: later(base, day * step + MINUTE) });
      for (let i = 1; i <= 5; i += 1) checked.push(await guess(first, wrongPin(first.pin, i)));
      for (let i = 1; i <= 4; i += 1) checked.push(await guess(second, wrongPin(second.pin, i)));
    }
    expect(await checkedAttempts([email])).toBe(PIN_BUDGET.addressPerYear);
    expect(checked[PIN_BUDGET.addressPerYear - 1]).toEqual({
      status: "pin_closed",
      // Until the first of them, made on the first day, is a year old.
      retryAfterSeconds: (365 * DAY - 11 * step) / 1000,
    });
    expect(checked.slice(PIN_BUDGET.addressPerYear).map((result) => result.status)).toEqual(
      Array<string>(8).fill("pin_closed"),
    );
  });
});

describe("the PIN guess budget per client address", () => {
  it("refuses the 21st wrong code in an hour from one client address, across many addresses", async () => {
    const now = new Date();
    const attacker = uniqueClientIp();
    const challenges = await typedChallengesFor(5, now);
    const results = await guessWrong(challenges, attacker, now);
    expect(results.slice(20)).toEqual(
      Array(5).fill({ status: "too_many_failures", retryAfterSeconds: 3600 }),
    );
    expect(await checkedAttempts(challenges.map((asked) => asked.email))).toBe(20);

    // For an address with a wrong code of its own, the right code is refused
    // from that client address, and checked from another.
    const victim = await askForCode({ now });
    await typoOfItsOwn(victim);
    expect((await guess(victim, victim.pin, { clientIp: attacker })).status).toBe(
      "too_many_failures",
    );
    expect((await guess(victim, victim.pin, { clientIp: uniqueClientIp() })).status).toBe("ok");

    // An address without one is not locked out by the others' failures: its
    // right code is checked; a wrong one is, once, and then it is refused too.
    const newcomer = await askForCode({ now });
    expect((await guess(newcomer, newcomer.pin, { clientIp: attacker })).status).toBe("ok");
    const fresh = await askForCode({ now });
    const tries = [];
    for (let i = 1; i <= 3; i += 1) {
      tries.push(await guess(fresh, wrongPin(fresh.pin, i), { clientIp: attacker }));
    }
    expect(tries).toEqual([
      { status: "wrong", attemptsLeft: 4 },
      { status: "too_many_failures", retryAfterSeconds: 3600 },
      { status: "too_many_failures", retryAfterSeconds: 3600 },
    ]);
    expect(await checkedAttempts([fresh.email])).toBe(1);
  });

  it("refuses the 51st wrong code in a day from one client address", async () => {
    const base = new Date();
    const attacker = uniqueClientIp();
    const results = [];
    const emails = [];
    for (let hour = 0; hour < 3; hour += 1) {
      const now = later(base, hour * HOUR);
      const challenges = await typedChallengesFor(4, now);
      emails.push(...challenges.map((asked) => asked.email));
      results.push(...(await guessWrong(challenges, attacker, now)));
    }
    expect(await checkedAttempts(emails)).toBe(PIN_BUDGET.clientPerDay);
    expect(results.at(-1)).toEqual({
      status: "too_many_failures",
      retryAfterSeconds: (DAY - 2 * HOUR) / 1000,
    });
  });

  it("checks 20 of 30 simultaneous guesses from one client address at six addresses", async () => {
    const now = new Date();
    const attacker = uniqueClientIp();
    const challenges = await typedChallengesFor(6, now);
    const results = await Promise.all(
      challenges.flatMap((asked) =>
        Array.from({ length: 5 }, (_, i) =>
          guess(asked, wrongPin(asked.pin, i + 1), { clientIp: attacker, now }),
        ),
      ),
    );
    expect(await checkedAttempts(challenges.map((asked) => asked.email))).toBe(20);
    expect(results.filter((result) => result.status === "too_many_failures")).toHaveLength(10);
  });

  it("checks 20 of 30 simultaneous guesses whose clocks were read in another order than they commit", async () => {
    // Each request reads the clock before it waits for the budget's lock: a
    // guess that read an earlier time may be counted after one that read a
    // later time, and must still see it.
    const base = new Date();
    const attacker = uniqueClientIp();
    const challenges = await typedChallengesFor(6, base);
    const guesses = challenges.flatMap((asked, a) =>
      Array.from({ length: 5 }, (_, i) => ({ asked, i, at: later(base, 30 - (a * 5 + i)) })),
    );
    const results = await Promise.all(
      guesses.map(({ asked, i, at }) =>
        guess(asked, wrongPin(asked.pin, i + 1), { clientIp: attacker, now: at }),
      ),
    );
    expect(await checkedAttempts(challenges.map((asked) => asked.email))).toBe(20);
    expect(results.filter((result) => result.status === "too_many_failures")).toHaveLength(10);
  });

  it("counts an IPv6 client by its /64 and stores keyed hashes, never an address", async () => {
    expect(ipv6Prefix64("2001:db8::1")).toBe("2001:db8:0:0");
    expect(ipv6Prefix64("2001:0db8:00aa:0001:ffff:1:2:3")).toBe("2001:db8:aa:1");
    expect(ipv6Prefix64("::ffff:192.0.2.1")).toBe("0:0:0:0");
    expect(ipv6Prefix64("fe80::")).toBe("fe80:0:0:0");
    expect(clientKey("2001:db8:7:8::1")).toBe(clientKey("2001:db8:7:8:aaaa:bbbb:cccc:dddd"));
    expect(clientKey("2001:db8:7:8::1")).not.toBe(clientKey("2001:db8:7:9::1"));
    expect(clientKey("192.0.2.1")).not.toBe(clientKey("192.0.2.2"));

    const asked = await askForCode();
    await guess(asked, wrongPin(asked.pin));
    const failure = await db().pinFailure.findFirstOrThrow({
      where: { addressKey: addressKey(asked.email) },
    });
    expect(failure.clientKey).toBe(clientKey(asked.clientIp));
    expect(failure.addressKey).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(failure)).not.toContain(asked.email);
    expect(JSON.stringify(failure)).not.toContain(ipv6Prefix64(asked.clientIp));
  });
});

describe("the code form when codes are paused", () => {
  const postCode = (asked: AskedCode, code: string, clientIp: string) =>
    handleLoginCode(
      new Request(`${ISSUER}/login/code`, {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Origin: ISSUER,
          [CLIENT_IP_HEADER]: clientIp,
          Cookie: `${loginNonceCookieName()}=${asked.browserNonce}`,
        },
        body: new URLSearchParams({ email: asked.email, code }).toString(),
      }),
    ).then((response) => new URL(response.headers.get("Location") ?? "", ISSUER).searchParams);

  it("sends the browser back to /login saying why and for how long", async () => {
    const now = Date.now();
    const email = uniqueEmail("form");
    const first = await askForCode({ email, now: new Date(now - 2 * MINUTE) });
    const second = await askForCode({ email, now: new Date(now - MINUTE) });
    for (let i = 1; i <= 5; i += 1) await guess(first, wrongPin(first.pin, i), { now: new Date() });
    for (let i = 1; i <= 4; i += 1)
      await guess(second, wrongPin(second.pin, i), { now: new Date() });

    const closed = await postCode(second, wrongPin(second.pin, 5), second.clientIp);
    expect(closed.get("error")).toBe("pin_closed");
    expect(Number(closed.get("retry"))).toBeGreaterThan(SECONDS_PER_DAY - 60);
    expect(closed.get("email")).toBe(email);

    const attacker = uniqueClientIp();
    await guessWrong(await challengesFor(4), attacker, new Date());
    const victim = await askForCode();
    await typoOfItsOwn(victim, new Date());
    const refused = await postCode(victim, victim.pin, attacker);
    expect(refused.get("error")).toBe("too_many_failures");
    expect(Number(refused.get("retry"))).toBeGreaterThan(3500);
  });
});
