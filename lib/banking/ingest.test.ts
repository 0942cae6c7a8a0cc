import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as accountsRoute from "@/app/api/accounts/route";
import * as accountSyncRoute from "@/app/api/accounts/[id]/sync/route";
import * as transactionsRoute from "@/app/api/accounts/[id]/transactions/route";
import { ACCOUNT_UIDS, startLoadBank, type LoadBank } from "@/scripts/load/bank";
import { partnerTenantOf, partnerWithRecipientKey } from "@/test/bank-data";
import {
  balancesOfTwoSources,
  CARD_PURCHASE_CODE,
  EXCHANGE_RATE_SHAPES,
} from "@/test/fake-enable-banking";
import { ISSUER, mintApiKey } from "@/test/oauth-fixtures";
import { generateKeyPair, openJson } from "../crypto/envelope";
import { keyedHash } from "../crypto/keyed-hash";
import { db } from "../db/client";
import { approveSandboxAuthorization } from "../upstream/sandbox/consent";
import { sandboxUpstream } from "../upstream/sandbox";
import type { Upstream, UpstreamSession } from "../upstream/types";
import { createTestUser } from "../../test/oauth-fixtures";
import { storeBankSession } from "./ingest";
import { INITIAL_HISTORY_DAYS } from "./windows";
import { ensureTenant } from "./tenants";
import { rawSetting, setSetting } from "../env";

const NOW = new Date("2026-11-21T10:00:00Z");
const sandbox = sandboxUpstream({ now: () => NOW, baseUrl: "http://localhost:3000" });

async function sandboxSession(upstream: Upstream = sandbox): Promise<UpstreamSession> {
  const { authorizationId } = await upstream.startAuthorization({
    aspsp: { name: "Sandbox Sparbank SE", country: "SE" },
    psuType: "personal",
    redirectUrl: "http://localhost:3000/banks/callback",
    state: "s",
    validUntil: new Date(NOW.getTime() + 180 * 86_400_000),
    language: "sv",
  });
  const back = new URL(approveSandboxAuthorization(authorizationId, NOW) ?? "");
  return upstream.completeAuthorization({ code: back.searchParams.get("code") ?? "" });
}

async function tenantWithKey() {
  const keys = generateKeyPair();
  const user = await createTestUser();
  const person = await db().user.update({
    where: { id: user.id },
    data: { publicKey: keys.publicKeyRawB64 },
  });
  const tenant = await db().$transaction((tx) => ensureTenant(tx, { user: person, partner: null }));
  return { tenantId: tenant.id, keys };
}

describe("storing a new bank consent", () => {
  it("seals every sensitive field to the tenant key and keeps only keyed hashes of ids", async () => {
    const { tenantId, keys } = await tenantWithKey();
    const session = await sandboxSession();
    const stored = await storeBankSession({
      tenantId,
      sealingKey: keys.publicKeyRawB64,
      upstream: sandbox,
      session,
      now: NOW,
    });
    expect(stored.accountIds).toHaveLength(session.accounts.length);

    const connection = await db().connection.findUniqueOrThrow({
      where: { id: stored.connectionId },
      include: { accounts: { include: { balances: true, transactions: true } } },
    });
    expect(connection).toMatchObject({
      tenantId,
      upstream: "sandbox",
      aspspName: "Sandbox Sparbank SE",
      aspspCountry: "SE",
      psuType: "personal",
      status: "Active",
      upstreamSessionHash: keyedHash("upstream-session", session.sessionId),
    });
    expect(openJson(keys.privateKeyPkcs8B64, connection.upstreamSessionEnc ?? "")).toEqual({
      sessionId: session.sessionId,
    });

    for (const [index, upstreamAccount] of session.accounts.entries()) {
      const account = connection.accounts.find((row) => row.id === stored.accountIds[index]);
      if (!account) throw new Error("account not stored");
      expect(account.currency).toBe("SEK");
      expect(account.uidHash).toBe(keyedHash("uid", upstreamAccount.uid));
      expect(openJson(keys.privateKeyPkcs8B64, account.uidEnc ?? "")).toEqual({
        uid: upstreamAccount.uid,
      });
      expect(openJson(keys.privateKeyPkcs8B64, account.enc ?? "")).toEqual({
        ownerName: upstreamAccount.ownerName,
        iban: upstreamAccount.iban,
        bban: upstreamAccount.bban,
        accountName: upstreamAccount.accountName,
        product: upstreamAccount.product,
      });
      // No plaintext bank data in any stored column.
      expect(JSON.stringify(account)).not.toContain(upstreamAccount.iban ?? "-");

      const balances = await sandbox.getBalances(upstreamAccount.uid);
      expect(account.balances.map((row) => row.balanceType).sort()).toEqual(["ITAV", "ITBD"]);
      for (const row of account.balances) {
        const expected = balances.find((balance) => balance.balanceType === row.balanceType);
        expect(openJson(keys.privateKeyPkcs8B64, row.enc)).toEqual({
          amount: expected?.amount,
          name: expected?.name,
        });
      }

      const oldest = account.transactions.map((row) => row.bookingDate ?? "").sort()[0] ?? "";
      const horizon = new Date(NOW.getTime() - INITIAL_HISTORY_DAYS * 86_400_000);
      expect(oldest >= horizon.toISOString().slice(0, 10)).toBe(true);
      expect(oldest <= new Date(horizon.getTime() + 7 * 86_400_000).toISOString()).toBe(true);
      const newest = account.transactions.reduce((a, b) =>
        (a.bookingDate ?? "") >= (b.bookingDate ?? "") ? a : b,
      );
      const payload = openJson<Record<string, unknown>>(keys.privateKeyPkcs8B64, newest.enc);
      expect(payload.amount).toMatch(/^\d+\.\d{2}$/);
      expect(typeof payload.rawJson).toBe("string");
      expect(Object.keys(payload).sort()).toEqual(
        [
          "amount",
          "creditorName",
          "creditorIban",
          "creditorBban",
          "creditorAgentBic",
          "debtorName",
          "debtorIban",
          "debtorBban",
          "debtorAgentBic",
          "remittanceInformation",
          "note",
          "referenceNumber",
          "exchangeRate",
          "merchantCategoryCode",
          "balanceAfter",
          "balanceAfterCurrency",
          "rawJson",
        ].sort(),
      );
      const hashes = account.transactions.map((row) => row.dedupeHash);
      expect(new Set(hashes).size).toBe(hashes.length);
    }
  });

  it("stores nothing when the upstream fails part-way", async () => {
    const { tenantId, keys } = await tenantWithKey();
    const session = await sandboxSession();
    let calls = 0;
    const failing: Upstream = {
      ...sandbox,
      async getBalances(uid) {
        calls += 1;
        if (calls === 2) throw new Error("bank went away");
        return sandbox.getBalances(uid);
      },
    };
    await expect(
      storeBankSession({
        tenantId,
        sealingKey: keys.publicKeyRawB64,
        upstream: failing,
        session,
        now: NOW,
      }),
    ).rejects.toThrow("bank went away");
    expect(await db().connection.count({ where: { tenantId } })).toBe(0);
    expect(await db().account.count({ where: { tenantId } })).toBe(0);
  });
});

/**
 * What a real bank answers, through the Enable Banking connector and a real
 * HTTP bank (the Enable Banking fake): the data API serves what was stored,
 * every envelope opened.
 */
describe("a real bank's answers, stored and served", () => {
  const [uid = ""] = ACCOUNT_UIDS;
  let bank: LoadBank;
  const previous = new Map<string, string | undefined>();

  beforeAll(async () => {
    bank = await startLoadBank();
    // Syncs reach the bank through the configured connector: point it at the fake.
    for (const [name, value] of Object.entries(bank.settings)) {
      if (name === "UPSTREAM") continue;
      previous.set(name, rawSetting(name));
      setSetting(name, value);
    }
  });

  afterAll(async () => {
    for (const [name, value] of previous) setSetting(name, value ?? "");
    await bank.close();
  });

  /** A partner's user with the fake bank connected: its API key, recipient key and account. */
  async function connected() {
    const { client, keys } = await partnerWithRecipientKey();
    const { key, user } = await mintApiKey(client);
    const tenant = await partnerTenantOf(client, user);
    const { accountIds } = await bank.connect(tenant.id, keys.publicKeyRawB64);
    return { key, keys, accountId: accountIds[0] ?? "" };
  }

  type ServedBalance = {
    type: string;
    currency: string;
    referenceDate: string | null;
    enc: string;
  };

  async function servedBalances(key: string, accountId: string, privateKey: string) {
    const response = await accountsRoute.GET(
      new Request(`${ISSUER}/api/accounts`, { headers: { "X-Api-Key": key } }),
      {},
    );
    expect(response.status).toBe(200);
    const accounts = (await response.json()) as { id: string; balances: ServedBalance[] }[];
    const account = accounts.find((candidate) => candidate.id === accountId);
    return (account?.balances ?? []).map((balance) => ({
      type: balance.type,
      currency: balance.currency,
      referenceDate: balance.referenceDate,
      ...openJson<{ amount: string; name: string | null }>(privateKey, balance.enc),
    }));
  }

  async function sync(key: string, accountId: string) {
    const response = await accountSyncRoute.POST(
      new Request(`${ISSUER}/api/accounts/${accountId}/sync`, {
        method: "POST",
        headers: { "X-Api-Key": key, "Content-Type": "application/json" },
        body: JSON.stringify({ uid }),
      }),
      { params: Promise.resolve({ id: accountId }) },
    );
    expect(response.status).toBe(200);
  }

  it("a page with malformed exchange rates is stored whole, each transaction with the bank's own JSON", async () => {
    const shapes = Object.entries(EXCHANGE_RATE_SHAPES);
    const sent = shapes.map(([name, shape]) => ({
      entry_reference: `fx-${name}`,
      transaction_amount: { amount: "25.00", currency: "EUR" },
      credit_debit_indicator: "DBIT",
      status: "BOOK",
      booking_date: "2026-11-02",
      bank_transaction_code: CARD_PURCHASE_CODE,
      remittance_information: [`Card purchase ${name}`],
      exchange_rate: shape.sent,
    }));
    bank.fake.transactionPages[uid] = [{ transactions: sent, continuation_key: null }];
    const { key, keys, accountId } = await connected();

    const response = await transactionsRoute.GET(
      new Request(`${ISSUER}/api/accounts/${accountId}/transactions?limit=500`, {
        headers: { "X-Api-Key": key },
      }),
      { params: Promise.resolve({ id: accountId }) },
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      total: number;
      items: { bankTransactionCode: string | null; enc: string }[];
    };
    expect(body.total).toBe(sent.length);
    const served = body.items.map((item) => ({
      item,
      payload: openJson<Record<string, string | null>>(keys.privateKeyPkcs8B64, item.enc),
    }));
    for (const [index, [name, shape]] of shapes.entries()) {
      const found = served.find(({ payload }) => payload.remittanceInformation?.endsWith(name));
      expect(found?.payload).toMatchObject({ amount: "25.00", exchangeRate: shape.rate });
      expect(JSON.parse(found?.payload.rawJson ?? "{}")).toEqual(sent[index]);
      // The code is in plaintext; the bank's description of it only in the sealed rawJson.
      expect(found?.item.bankTransactionCode).toBe("CCRD-POSD");
      expect(JSON.stringify(found?.item)).not.toContain(CARD_PURCHASE_CODE.description);
      expect(found?.payload.rawJson).toContain(CARD_PURCHASE_CODE.description);
    }
  });

  it("two balances of one type are both served after the ingest and after a sync; one no longer reported is removed", async () => {
    bank.fake.balances[uid] = balancesOfTwoSources();
    const { key, keys, accountId } = await connected();
    const serve = () => servedBalances(key, accountId, keys.privateKeyPkcs8B64);
    const itav = (amount: string, name: string, referenceDate: string) => ({
      type: "ITAV",
      currency: "EUR",
      referenceDate,
      amount,
      name,
    });
    const booked = {
      type: "ITBD",
      currency: "EUR",
      referenceDate: "2026-11-20",
      amount: "1520.40",
      name: "Booked balance",
    };

    expect(await serve()).toEqual([
      itav("1490.40", "Available balance", "2026-11-20"),
      itav("1402.15", "Available for card payments", "2026-11-21"),
      booked,
    ]);

    // The next read: the card system's balance moved.
    const [bookedSent, coreSent, cardSent] = balancesOfTwoSources();
    bank.fake.balances[uid] = [
      bookedSent,
      coreSent,
      { ...cardSent, balance_amount: { amount: "1377.15", currency: "EUR" } },
    ];
    await sync(key, accountId);
    expect(await serve()).toEqual([
      itav("1490.40", "Available balance", "2026-11-20"),
      itav("1377.15", "Available for card payments", "2026-11-21"),
      booked,
    ]);

    // The bank reports the card system's balance no more.
    bank.fake.balances[uid] = [bookedSent, coreSent];
    await sync(key, accountId);
    expect(await serve()).toEqual([itav("1490.40", "Available balance", "2026-11-20"), booked]);
    expect(await db().balance.count({ where: { accountId } })).toBe(2);

    // Nor any other: the account has no balance left.
    bank.fake.balances[uid] = [];
    await sync(key, accountId);
    expect(await serve()).toEqual([]);
  });
});
