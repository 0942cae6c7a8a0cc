import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { sandboxUpstream } from "../upstream/sandbox";
import type { Upstream } from "../upstream/types";
import { partnerTenantOf, partnerWithRecipientKey, sandboxConsent } from "../../test/bank-data";
import { ISSUER, mintApiKey } from "../../test/oauth-fixtures";
import { startHistoryReading, storeConnection, storeHistory } from "./ingest";

/**
 * A new consent's history is read ahead of its writes (docs/ingest.md): each
 * next account's pages once the previous one's are all in, while that one's
 * last chunks are written; never two accounts' pages at once, and nothing
 * more once the reading is stopped.
 */

const sandbox = sandboxUpstream({ baseUrl: ISSUER });

/** The sandbox, recording which account each page request was for, in order. */
function recordingSandbox() {
  const calls: string[] = [];
  let inFlight = 0;
  let mostAtOnce = 0;
  const upstream: Upstream = {
    ...sandbox,
    async getTransactions(accountUid, query, options) {
      calls.push(accountUid);
      inFlight += 1;
      mostAtOnce = Math.max(mostAtOnce, inFlight);
      try {
        return await sandbox.getTransactions(accountUid, query, options);
      } finally {
        inFlight -= 1;
      }
    },
  };
  return { upstream, calls, mostAtOnce: () => mostAtOnce };
}

async function consentAt(aspsp: { name: string; country: string }) {
  const { client, keys } = await partnerWithRecipientKey();
  const { user } = await mintApiKey(client);
  const tenant = await partnerTenantOf(client, user);
  const session = await sandboxConsent({ bank: aspsp });
  return { tenantId: tenant.id, sealingKey: keys.publicKeyRawB64, session };
}

const waitFor = async (condition: () => boolean) => {
  for (let i = 0; i < 200 && !condition(); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return condition();
};

describe("reading a new consent's history ahead", () => {
  it("reads the accounts in order, one at a time, and stores every account whole", async () => {
    const consent = await consentAt({ name: "Sandbox Nordbank DK", country: "DK" });
    const uids = consent.session.accounts.map((account) => account.uid);
    expect(uids.length).toBeGreaterThan(1);
    const bank = recordingSandbox();
    const input = { ...consent, upstream: bank.upstream };
    const connection = await storeConnection(input);
    const history = await storeHistory({ ...input, accounts: connection.accounts });
    expect(history.failedAccountIds).toEqual([]);

    // Each account's pages before the next one's, never two at once.
    const order = bank.calls.filter((uid, index) => bank.calls[index - 1] !== uid);
    expect(order).toEqual(uids);
    expect(bank.mostAtOnce()).toBe(1);

    // Stored once, each account whole: nothing more to store the second time.
    let stored = 0;
    for (const account of connection.accounts) {
      const row = await db().account.findUniqueOrThrow({ where: { id: account.id } });
      expect(row.historyPending).toBe(false);
      stored += await db().transaction.count({ where: { accountId: account.id } });
    }
    expect(stored).toBe(history.transactions);
    const again = await storeHistory({ ...input, accounts: connection.accounts });
    expect(again.transactions).toBe(0);
  });

  it("fetches the next account while the previous one is still being written", async () => {
    const consent = await consentAt({ name: "Sandbox Nordbank DK", country: "DK" });
    const uids = consent.session.accounts.map((account) => account.uid);
    const bank = recordingSandbox();
    const reading = startHistoryReading({
      sealingKey: consent.sealingKey,
      upstream: bank.upstream,
      accountUids: uids,
    });
    // No write has started: the first account is read whole, then the second one's reading starts.
    await reading.read(0, uids[0] ?? "").fetched;
    expect(await waitFor(() => bank.calls.includes(uids[1] ?? ""))).toBe(true);
    reading.stop();
  });

  it("fetches no more pages once stopped (step 1 failed: nothing will be written)", async () => {
    const consent = await consentAt({ name: "Sandbox Nordbank DK", country: "DK" });
    const bank = recordingSandbox();
    const reading = startHistoryReading({
      sealingKey: consent.sealingKey,
      upstream: bank.upstream,
      accountUids: consent.session.accounts.map((account) => account.uid),
    });
    expect(await waitFor(() => bank.calls.length > 0)).toBe(true);
    reading.stop();
    const calls = bank.calls.length;
    const first = reading.read(0, consent.session.accounts[0]?.uid ?? "");
    await expect(first.fetched).rejects.toThrow(/given up/);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // At most the page that was on its way when it stopped.
    expect(bank.calls.length).toBeLessThanOrEqual(calls + 1);
  });

  it("refuses accounts given in another order than their history is read", async () => {
    const consent = await consentAt({ name: "Sandbox Nordbank DK", country: "DK" });
    const uids = consent.session.accounts.map((account) => account.uid);
    const reading = startHistoryReading({
      sealingKey: consent.sealingKey,
      upstream: sandbox,
      accountUids: uids,
    });
    reading.stop();
    expect(() => reading.read(0, uids[1] ?? "")).toThrow(/order/);
  });
});
