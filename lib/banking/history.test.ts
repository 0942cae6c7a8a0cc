import { describe, expect, it } from "vitest";
import * as accountsRoute from "@/app/api/accounts/route";
import * as transactionsRoute from "@/app/api/accounts/[id]/transactions/route";
import { openJson } from "../crypto/envelope";
import { db } from "../db/client";
import { sandboxUpstream } from "../upstream/sandbox";
import { UpstreamError, type Upstream } from "../upstream/types";
import { partnerTenantOf, partnerWithRecipientKey, sandboxConsent } from "../../test/bank-data";
import { ISSUER, mintApiKey } from "../../test/oauth-fixtures";
import { storeConnection, storeHistory } from "./ingest";
import { syncAccount } from "./sync";
import { WRITE_CHUNK } from "./write";

/**
 * A new connection's accounts are stored before their history; the data API
 * never serves a history that is not complete (docs/ingest.md), and the
 * history is written in batches that keep de-duplication.
 */

const sandbox = sandboxUpstream({ baseUrl: ISSUER });

async function partnerUserAtBank(aspsp: { name: string; country: string }, psuType = "personal") {
  const { client, keys } = await partnerWithRecipientKey();
  const { key, user } = await mintApiKey(client);
  const tenant = await partnerTenantOf(client, user);
  const session = await sandboxConsent({
    bank: aspsp,
    psuType: psuType === "business" ? "business" : "personal",
  });
  const input = {
    tenantId: tenant.id,
    sealingKey: keys.publicKeyRawB64,
    upstream: sandbox,
    session,
  };
  return { key, keys, tenantId: tenant.id, input };
}

const transactions = (key: string, accountId: string) =>
  transactionsRoute.GET(
    new Request(`${ISSUER}/api/accounts/${accountId}/transactions?limit=500`, {
      headers: { "X-Api-Key": key },
    }),
    { params: Promise.resolve({ id: accountId }) },
  );

async function listedAccounts(key: string) {
  const response = await accountsRoute.GET(
    new Request(`${ISSUER}/api/accounts`, { headers: { "X-Api-Key": key } }),
    {},
  );
  expect(response.status).toBe(200);
  return (await response.json()) as { id: string; balances: { type: string; enc: string }[] }[];
}

describe("a history still being stored", () => {
  it("answers 503 transient with Retry-After until the account's history is whole, then all of it", async () => {
    const { key, keys, input } = await partnerUserAtBank({
      name: "Sandbox Nordbank DK",
      country: "DK",
    });
    const connection = await storeConnection(input);
    // The accounts and their balances are there already.
    const listed = await listedAccounts(key);
    expect(listed.map((account) => account.id).sort()).toEqual(
      connection.accounts.map((account) => account.id).sort(),
    );
    for (const account of listed) {
      const booked = account.balances.find((balance) => balance.type === "ITBD");
      expect(
        openJson<{ amount: string }>(keys.privateKeyPkcs8B64, booked?.enc ?? "").amount,
      ).toMatch(/^-?\d+\.\d{2}$/);
    }
    const [first] = connection.accounts;
    const waiting = await transactions(key, first?.id ?? "");
    expect(waiting.status).toBe(503);
    expect(waiting.headers.get("retry-after")).toBe("5");
    expect(await waiting.json()).toEqual({ status: 503, reason: "transient" });

    const history = await storeHistory({ ...input, accounts: connection.accounts });
    expect(history.failedAccountIds).toEqual([]);
    const whole = await transactions(key, first?.id ?? "");
    expect(whole.status).toBe(200);
    const body = (await whole.json()) as { total: number };
    expect(body.total).toBe(await db().transaction.count({ where: { accountId: first?.id } }));
    expect(body.total).toBeGreaterThan(0);
  });

  it("keeps an account whose history failed held back, until its sync fetches the whole first window", async () => {
    const { key, tenantId, input } = await partnerUserAtBank({
      name: "Sandbox Sparbank SE",
      country: "SE",
    });
    const connection = await storeConnection(input);
    const failing: Upstream = {
      ...sandbox,
      getTransactions() {
        return Promise.reject(new UpstreamError("bank_error", "the bank went away"));
      },
    };
    const history = await storeHistory({
      ...input,
      upstream: failing,
      accounts: connection.accounts,
    });
    expect(history.failedAccountIds.sort()).toEqual(
      connection.accounts.map((account) => account.id).sort(),
    );
    const [first] = connection.accounts;
    const accountId = first?.id ?? "";
    expect(await db().transaction.count({ where: { accountId } })).toBe(0);
    expect((await transactions(key, accountId)).status).toBe(503);

    const synced = await syncAccount({ tenantId, accountId, uid: first?.uid ?? "" });
    expect(synced).toMatchObject({ ok: true });
    const stored = await db().transaction.count({ where: { accountId } });
    expect(synced?.ok && synced.newTransactions).toBe(stored);
    const whole = await transactions(key, accountId);
    expect(whole.status).toBe(200);
    expect(((await whole.json()) as { total: number }).total).toBe(stored);
    // The same window as a first history that succeeded.
    const again = await storeHistory({ ...input, accounts: [first ?? { id: "", uid: "" }] });
    expect(again.transactions).toBe(0);
  });
});

describe("batched writes", () => {
  it("store every row of a large account in chunks, once, and de-duplicate a second pass", async () => {
    const { input } = await partnerUserAtBank(
      { name: "Sandbox Handelsbank DK", country: "DK" },
      "business",
    );
    const connection = await storeConnection(input);
    const first = await storeHistory({ ...input, accounts: connection.accounts });
    const accountIds = connection.accounts.map((account) => account.id);
    const rows = await db().transaction.findMany({
      where: { accountId: { in: accountIds } },
      select: { accountId: true, dedupeHash: true },
    });
    expect(rows).toHaveLength(first.transactions);
    // The shop's account alone needs more than one INSERT.
    expect(
      Math.max(...accountIds.map((id) => rows.filter((row) => row.accountId === id).length)),
    ).toBeGreaterThan(WRITE_CHUNK);
    expect(new Set(rows.map((row) => `${row.accountId}|${row.dedupeHash}`)).size).toBe(rows.length);

    const second = await storeHistory({ ...input, accounts: connection.accounts });
    expect(second).toEqual({ transactions: 0, failedAccountIds: [] });
    expect(await db().transaction.count({ where: { accountId: { in: accountIds } } })).toBe(
      rows.length,
    );
  });

  it("store rows under time-ordered ids (UUIDv7), so the primary key grows at its right edge", async () => {
    const { input } = await partnerUserAtBank(
      { name: "Sandbox Handelsbank DK", country: "DK" },
      "business",
    );
    const before = Date.now();
    const connection = await storeConnection(input);
    await storeHistory({ ...input, accounts: connection.accounts });
    const after = Date.now();
    const rows = await db().transaction.findMany({
      where: { accountId: { in: connection.accounts.map((account) => account.id) } },
      select: { id: true, createdAt: true },
    });
    expect(rows.length).toBeGreaterThan(WRITE_CHUNK);
    for (const { id } of rows) {
      // Version 7, RFC 9562 variant; the first 48 bits are the Unix time in milliseconds.
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const milliseconds = parseInt(id.replaceAll("-", "").slice(0, 12), 16);
      expect(milliseconds).toBeGreaterThanOrEqual(before);
      expect(milliseconds).toBeLessThanOrEqual(after);
    }
    expect(new Set(rows.map((row) => row.id)).size).toBe(rows.length);
  });
});
