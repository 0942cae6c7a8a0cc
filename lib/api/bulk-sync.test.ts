import { afterEach, describe, expect, it } from "vitest";
import * as bulkSyncRoute from "@/app/api/sync/route";
import { connectBank, connectedPartnerUser } from "@/test/bank-data";
import { SideConnection } from "@/test/db-pressure";
import { ISSUER } from "@/test/oauth-fixtures";
import { SYNC_RETRY_AFTER_SECONDS } from "../banking/budget";
import { db } from "../db/client";
import { rawSetting, setSetting } from "../env";

/**
 * POST /api/sync when the service fails partway: each account says what
 * happened to it. Accounts synced before the failure are counted; an
 * account the database or the deadline cut off is a `transient` failure
 * with nothing of it stored; only a call of which nothing could be done is
 * refused as a whole.
 */

const DAY_MS = 86_400_000;
const databaseUrl = () => rawSetting("DATABASE_URL") ?? "";

afterEach(() => {
  setSetting("SYNC_DEADLINE_SECONDS", "");
});

/** A partner user with two sandbox banks (three accounts) unsynced for three days. */
async function threeAccounts() {
  const partner = await connectedPartnerUser({ agoMs: 3 * DAY_MS });
  const second = await connectBank(partner.tenantId, partner.keys.publicKeyRawB64, {
    bank: { name: "Sandbox Sparbank SE", country: "SE" },
    agoMs: 3 * DAY_MS,
  });
  const items = [partner, second].flatMap((connected) =>
    connected.stored.accountIds.map((accountId, index) => ({
      accountId,
      uid: connected.session.accounts[index]?.uid ?? "",
    })),
  );
  if (items.length < 3) throw new Error("expected at least three accounts");
  return { key: partner.key, items: items.slice(0, 3) };
}

function syncAll(key: string, items: { accountId: string; uid: string }[]) {
  return bulkSyncRoute.POST(
    new Request(`${ISSUER}/api/sync`, {
      method: "POST",
      headers: { "X-Api-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({ items }),
    }),
    { params: Promise.resolve({}) },
  );
}

const countOf = (accountId: string) => db().transaction.count({ where: { accountId } });

/** Locks these accounts' rows: their syncs' writes wait (balances reference the account). */
async function lockAccounts(accountIds: string[]) {
  const side = await SideConnection.open(databaseUrl());
  await side.lock('SELECT id FROM "Account" WHERE id = ANY($1::uuid[]) FOR UPDATE', [accountIds]);
  return side;
}

describe("POST /api/sync failing partway", () => {
  it("an account whose write loses its connection is transient; the accounts before it are counted", async () => {
    const { key, items } = await threeAccounts();
    const [first, cut, last] = items;
    if (!first || !cut || !last) throw new Error("no accounts");
    const before = await Promise.all(items.map((item) => countOf(item.accountId)));
    const side = await lockAccounts([cut.accountId]);
    const response = syncAll(key, items);
    const [pid] = await side.waitForBlocked(1);
    await side.terminate(pid ?? 0);
    await side.unlock();
    await side.close();

    const answer = await response;
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { accounts: number; newTransactions: number };
    expect(body).toEqual({
      accounts: 2,
      newTransactions: expect.any(Number),
      failures: [{ accountId: cut.accountId, reason: "transient", bankErrorCode: null }],
    });
    const after = await Promise.all(items.map((item) => countOf(item.accountId)));
    const added = after.map((count, index) => count - (before[index] ?? 0));
    expect(added[1]).toBe(0);
    expect((added[0] ?? 0) + (added[2] ?? 0)).toBe(body.newTransactions);
    expect(body.newTransactions).toBeGreaterThan(0);
  });

  it("the deadline cuts one account off and the rest are not tried; what synced before counts", async () => {
    const { key, items } = await threeAccounts();
    const [first, cut, untried] = items;
    if (!first || !cut || !untried) throw new Error("no accounts");
    const before = await countOf(cut.accountId);
    setSetting("SYNC_DEADLINE_SECONDS", "3");
    const side = await lockAccounts([cut.accountId]);
    try {
      const answer = await syncAll(key, items);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({
        accounts: 1,
        newTransactions: expect.any(Number),
        failures: [
          { accountId: cut.accountId, reason: "transient", bankErrorCode: null },
          { accountId: untried.accountId, reason: "transient", bankErrorCode: null },
        ],
      });
    } finally {
      await side.unlock();
      await side.close();
    }
    expect(await countOf(cut.accountId)).toBe(before);
  });

  it("only when no account could be synced is the whole call refused: 503 transient, Retry-After", async () => {
    const { key, items } = await threeAccounts();
    setSetting("SYNC_DEADLINE_SECONDS", "2");
    const side = await lockAccounts(items.map((item) => item.accountId));
    try {
      const answer = await syncAll(key, items);
      expect(answer.status).toBe(503);
      expect(answer.headers.get("Retry-After")).toBe(String(SYNC_RETRY_AFTER_SECONDS));
      expect(await answer.json()).toEqual({ status: 503, reason: "transient" });
    } finally {
      await side.unlock();
      await side.close();
    }
  });
});
