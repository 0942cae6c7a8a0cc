import { beforeEach, describe, expect, it } from "vitest";
import { loadBankAccountFixture } from "@/test/load-bank-account";
import { rateLimitedAnswer } from "@/test/fake-enable-banking";
import { db } from "../db/client";
import { setSetting } from "../env";

/**
 * A sync through its route against a real HTTP bank (the Enable Banking
 * fake): one passing failure of the bank is retried inside the sync, which
 * then succeeds; a wait the bank asks for that the sync's deadline cannot
 * hold is answered at once (docs/sync-failures.md#retries).
 */

const account = loadBankAccountFixture("retries");
const bank = {
  get fake() {
    return account.bank.fake;
  },
};

beforeEach(() => {
  bank.fake.script.length = 0;
  bank.fake.requests.length = 0;
  setSetting("SYNC_DEADLINE_SECONDS", "");
});

const sync = () => account.sync();

const lastSyncedAt = async () =>
  (
    await db().account.findUniqueOrThrow({
      where: { id: account.accountId },
      include: { connection: true },
    })
  ).connection.lastSyncedAt;

describe("a sync meets a failure of the bank", () => {
  it("one 502: retried inside the sync, which succeeds", async () => {
    const before = await lastSyncedAt();
    bank.fake.script.push({ status: 502, rawBody: "<html>Bad gateway</html>" });
    const response = await sync();
    expect(response.status).toBe(200);
    expect(await lastSyncedAt()).not.toEqual(before);
    // The failed request and its retry, besides the sync's other reads.
    expect(bank.fake.script).toHaveLength(0);
  });

  it("429 with Retry-After: 1: the sync waits and succeeds", async () => {
    bank.fake.script.push(rateLimitedAnswer("1"));
    const started = performance.now();
    const response = await sync();
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
  });

  it("a Retry-After longer than the sync's deadline: 429 rate_limited at once, Retry-After passed on", async () => {
    setSetting("SYNC_DEADLINE_SECONDS", "5");
    bank.fake.script.push(rateLimitedAnswer("8"));
    const started = performance.now();
    const response = await sync();
    expect(response.status).toBe(429);
    expect(response.headers.get("Retry-After")).toBe("8");
    expect(await response.json()).toEqual({
      status: 429,
      reason: "rate_limited",
      bankErrorCode: "ASPSP_RATE_LIMIT_EXCEEDED",
    });
    expect(performance.now() - started).toBeLessThan(3_000);
  });
});
