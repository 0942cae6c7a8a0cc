import { expect, test } from "@playwright/test";

/**
 * The per-address rate limits (/docs/errors) and the trusted proxy rule
 * (docs/security.md) against the real server: the client address is
 * stamped from the socket (TRUSTED_PROXY_HOPS=0 here), so forging
 * X-Forwarded-For never buys a fresh authorize budget. This spends
 * 127.0.0.1's authorize budget for a minute, hence the last project.
 */

const AUTHORIZE_BUDGET = 50;
/** Enough to cross one window boundary and still exhaust the next window. */
const MAX_REQUESTS = 2 * AUTHORIZE_BUDGET + 10;

const forgedAddress = (i: number) =>
  [
    `203.0.113.${i % 250}`,
    `198.51.100.${i % 250}, 10.0.0.${i % 250}`,
    `2001:db8::${i.toString(16)}`,
    `unknown, 192.0.2.${i % 250}`,
  ][i % 4] ?? "";

test("forged X-Forwarded-For headers do not escape the authorize limit: 429, no body, Retry-After", async ({
  request,
}) => {
  let served = 0;
  let limited = null;
  for (let i = 0; i < MAX_REQUESTS && !limited; i += 1) {
    const response = await request.get("/oauth/authorize?client_id=obc_forged_address_probe", {
      headers: { "X-Forwarded-For": forgedAddress(i), "X-Real-IP": `192.0.2.${i % 250}` },
      maxRedirects: 0,
    });
    if (response.status() === 429) limited = response;
    else served += 1;
  }
  expect(limited, `no 429 after ${served} requests with forged addresses`).not.toBeNull();
  expect(served).toBeLessThanOrEqual(2 * AUTHORIZE_BUDGET);
  expect(await limited?.body()).toHaveLength(0);
  expect(Number(limited?.headers()["retry-after"])).toBeGreaterThan(0);

  // Yet another forged address is still the same machine.
  const again = await request.get("/oauth/authorize?client_id=obc_forged_address_probe", {
    headers: { "X-Forwarded-For": "8.8.8.8" },
    maxRedirects: 0,
  });
  expect(again.status()).toBe(429);
});
