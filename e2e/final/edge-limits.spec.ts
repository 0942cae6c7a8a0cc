import { expect, test } from "@playwright/test";

/**
 * The edge's rate limit on the real server: the 301st API request from one
 * address in a minute answers 429 with no body, Retry-After and the baseline
 * headers. It spends 127.0.0.1's API budget for a minute, hence the last project.
 */

const API_BUDGET = 300;
/** Enough to cross one window boundary and still exhaust the next window. */
const MAX_REQUESTS = 2 * API_BUDGET + 10;

test("the API answers 429 with no body, Retry-After and the baseline headers once the budget is spent", async ({
  request,
}) => {
  let served = 0;
  let limited = null;
  for (let i = 0; i < MAX_REQUESTS && !limited; i += 1) {
    const response = await request.get("/api/connections");
    if (response.status() === 429) limited = response;
    else served += 1;
  }
  expect(limited, `no 429 after ${served} requests`).not.toBeNull();
  expect(served).toBeLessThanOrEqual(2 * API_BUDGET);
  const headers = limited?.headers() ?? {};
  expect(await limited?.body()).toHaveLength(0);
  expect(Number(headers["retry-after"])).toBeGreaterThan(0);
  expect(headers["cache-control"]).toBe("no-store");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["x-frame-options"]).toBe("DENY");
});
