import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as loginCode from "../../app/(flow)/login/code/route";
import * as loginRequest from "../../app/(flow)/login/request/route";
import { loginNonceCookieName } from "../../lib/auth/login-challenges";
import { PIN_BUDGET } from "../../lib/auth/pin-budget";
import { rawSetting } from "../../lib/env";
import { findLastMessage } from "../../lib/mail";
import { redisStore, replaceRateLimitStore } from "../../lib/ratelimit/limiter";
import { ISSUER, uniqueEmail } from "../oauth-fixtures";
import { startRouteServer, type RouteServer } from "../route-server";
import { checkedAttempts, wrongPin } from "../sign-in-fixtures";

/**
 * Many people sign in from behind one client address (an office NAT, a
 * mobile carrier's): wrong codes typed by some must not close PIN sign-in
 * for an address that has none of its own, while one person behind that
 * address stays protected from a guesser who shares it. Over real HTTP
 * (the sign-in forms' route handlers behind the service's client-address
 * stamp and edge), with the rate-limit store a real Redis and then an
 * unreachable one: these limits do not depend on it (docs/sign-in-limits.md).
 */

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({
    "/login/request": loginRequest,
    "/login/code": loginCode,
  });
});
afterAll(() => server.close());

/** One IPv4 address that many people share (TEST-NET-2, random per case). */
const sharedNetwork = () => `198.51.${randomInt(100, 256)}.${randomInt(1, 255)}`;

interface Browser {
  email: string;
  network: string;
  nonce: string;
  code: string;
}

function post(path: string, network: string, form: Record<string, string>, cookie = "") {
  return fetch(server.origin + path, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: ISSUER,
      "X-Forwarded-For": network,
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body: new URLSearchParams(form).toString(),
  });
}

/** A browser behind `network` asks for a sign-in mail for `email` and reads its code. */
async function askForCode(email: string, network: string): Promise<Browser> {
  const response = await post("/login/request", network, { email });
  expect(response.status).toBe(303);
  expect(new URL(response.headers.get("location") ?? "", ISSUER).searchParams.get("error")).toBe(
    null,
  );
  const cookie = response.headers.getSetCookie().find((line) => line.includes("nonce"));
  const nonce = /=([^;]+)/.exec(cookie ?? "")?.[1] ?? "";
  expect(nonce).not.toBe("");
  const mail = await findLastMessage(email);
  return { email, network, nonce, code: mail?.code ?? "" };
}

type Outcome = { signedIn: true } | { signedIn: false; error: string | null };

/** Types `code` into the browser's form, from `network` (the browser's own by default). */
async function typeCode(browser: Browser, code: string, network = browser.network) {
  const response = await post(
    "/login/code",
    network,
    { email: browser.email, code },
    `${loginNonceCookieName()}=${browser.nonce}`,
  );
  expect(response.status).toBe(303);
  const location = new URL(response.headers.get("location") ?? "", ISSUER);
  if (location.pathname !== "/login") {
    expect(response.headers.getSetCookie().length).toBeGreaterThan(0);
    return { signedIn: true } as Outcome;
  }
  return { signedIn: false, error: location.searchParams.get("error") } as Outcome;
}

/** The network's hour: five wrong codes at each of four newcomers' challenges, from `network`. */
async function spendTheNetworksHour(network: string) {
  const people = PIN_BUDGET.clientPerHour / 5;
  for (let person = 0; person < people; person += 1) {
    const browser = await askForCode(uniqueEmail("typo"), network);
    for (let i = 1; i <= 5; i += 1) await typeCode(browser, wrongPin(browser.code, i));
  }
}

const redisUrl = rawSetting("REDIS_URL");

describe.each([
  ["a real Redis", () => redisStore(redisUrl ?? "redis://127.0.0.1:6390")],
  ["Redis unreachable", () => redisStore("redis://127.0.0.1:1", 300)],
])("PIN sign-in behind a shared client address, rate-limit store: %s", (_label, store) => {
  beforeAll(() => replaceRateLimitStore(store()));
  afterAll(() => replaceRateLimitStore(undefined));

  it("signs in a newcomer with the right code after the network's hour of wrong codes", async () => {
    const network = sharedNetwork();
    await spendTheNetworksHour(network);
    const newcomer = await askForCode(uniqueEmail("newcomer"), network);
    expect(await typeCode(newcomer, newcomer.code)).toEqual({ signedIn: true });
    // And one whose first try is a typo still gets to type the right code
    // from another network, or open the link; from this one the limit applies.
    const typist = await askForCode(uniqueEmail("typist"), network);
    expect(await typeCode(typist, wrongPin(typist.code))).toEqual({
      signedIn: false,
      error: "wrong",
    });
    expect(await typeCode(typist, typist.code)).toEqual({
      signedIn: false,
      error: "too_many_failures",
    });
    expect(await typeCode(typist, typist.code, sharedNetwork())).toEqual({ signedIn: true });
  });

  it("checks one guess at a person from a network that spent its hour, however many guesses arrive at once", async () => {
    const network = sharedNetwork();
    await spendTheNetworksHour(network);
    // Guessers behind the same address share the challenge they asked for.
    const victim = await askForCode(uniqueEmail("victim"), network);
    const outcomes = await Promise.all(
      [1, 2, 3, 4, 5].map((offset) => typeCode(victim, wrongPin(victim.code, offset))),
    );
    expect(outcomes.filter((outcome) => !outcome.signedIn && outcome.error === "wrong")).toEqual([
      { signedIn: false, error: "wrong" },
    ]);
    expect(
      outcomes.filter((outcome) => !outcome.signedIn && outcome.error === "too_many_failures"),
    ).toHaveLength(4);
    expect(await checkedAttempts([victim.email])).toBe(1);
    // Later guesses from that network are refused unchecked, the right code too.
    expect(await typeCode(victim, victim.code)).toEqual({
      signedIn: false,
      error: "too_many_failures",
    });
    expect(await checkedAttempts([victim.email])).toBe(1);
  });
});
