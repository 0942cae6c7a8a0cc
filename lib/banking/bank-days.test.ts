import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as accountsRoute from "@/app/api/accounts/route";
import * as accountSyncRoute from "@/app/api/accounts/[id]/sync/route";
import * as transactionsRoute from "@/app/api/accounts/[id]/transactions/route";
import { partnerTenantOf, partnerWithRecipientKey } from "@/test/bank-data";
import { useScratchDatabase, type ScratchDatabase } from "@/test/db-pressure";
import { FakeBankLedger, type LedgerEntry, type TruthEntry } from "@/test/fake-bank-ledger";
import {
  FAKE_AUTHORIZATION_CODE,
  startFakeEnableBanking,
  type FakeEnableBanking,
  applicationKeyPair,
} from "@/test/fake-enable-banking";
import { ISSUER, mintApiKey } from "@/test/oauth-fixtures";
import { openJson } from "../crypto/envelope";
import { keyedHash } from "../crypto/keyed-hash";
import { db } from "../db/client";
import { enableBankingUpstream } from "../upstream/enable-banking";
import { storeBankSession } from "./ingest";

/**
 * Day by day against banks that behave as Enable Banking's reference says
 * banks do (test/fake-bank-ledger.ts): a consent's first history, then a
 * sync a day as the bank's clock moves, all through the connector over real
 * HTTP and the partner's own API calls. After every day, what the partner
 * reads, every envelope opened, is what the bank holds: no duplicate, no
 * stale pending entry, nothing missing, the balances right, and the id of a
 * booked transaction never changes.
 */

const APPLICATION_ID = "bank-days";
const DAY_MS = 86_400_000;
/** Sim day TODAY is the service's today: the bank's days run up to it. */
const TODAY = 40;
const FIRST_SYNC_DAY = 35;
const startDate = new Date(Date.now() - TODAY * DAY_MS).toISOString().slice(0, 10);

const entry = (values: Partial<LedgerEntry> & Pick<LedgerEntry, "key">): LedgerEntry => ({
  amount: "10.00",
  direction: "DBIT",
  counterparty: "Corner Shop",
  remittance: "Card purchase",
  madeOn: values.bookedOn ?? values.pendingFrom ?? 0,
  ...values,
});

/** A bank that gives no entry_reference and a new transaction_id on every read. */
const noReferences = new FakeBankLedger({ references: "never", pageSize: 7, startDate }).add(
  entry({
    key: "salary",
    amount: "2500.00",
    direction: "CRDT",
    counterparty: "Employer Oy",
    remittance: "Salary",
    bookedOn: 5,
  }),
  ...[3, 8, 12, 17, 21, 26, 30, 33].map((day) =>
    entry({
      key: `groceries-${day}`,
      amount: `${20 + day}.40`,
      counterparty: "Market",
      remittance: "Groceries",
      bookedOn: day,
    }),
  ),
  // Two identical coffees on one day, in the history and during the syncs: two transactions.
  entry({ key: "coffee-20a", amount: "3.80", counterparty: "Cafe Aroma", bookedOn: 20 }),
  entry({ key: "coffee-20b", amount: "3.80", counterparty: "Cafe Aroma", bookedOn: 20 }),
  entry({ key: "coffee-36a", amount: "3.80", counterparty: "Cafe Aroma", bookedOn: 36 }),
  entry({ key: "coffee-36b", amount: "3.80", counterparty: "Cafe Aroma", bookedOn: 36 }),
  // Booked on day 33, first reported on day 37: inside days already read.
  entry({
    key: "late",
    amount: "61.00",
    counterparty: "Hardware Store",
    bookedOn: 33,
    visibleFrom: 37,
  }),
  // A restaurant bill authorized at 40.00, booked two days later with a tip.
  entry({
    key: "dinner",
    amount: "40.00",
    bookedAmount: "46.00",
    counterparty: "Trattoria Roma",
    remittance: "Card payment",
    madeOn: 36,
    pendingFrom: 36,
    bookedOn: 38,
  }),
  // Pending a day, booked with the same amount.
  entry({
    key: "fuel",
    amount: "55.20",
    counterparty: "Fuel Station",
    madeOn: 37,
    pendingFrom: 37,
    bookedOn: 38,
  }),
  // A hotel's deposit: authorized, then released without booking.
  entry({
    key: "deposit",
    amount: "150.00",
    counterparty: "Hotel Nord",
    madeOn: 36,
    pendingFrom: 36,
    releasedOn: 39,
  }),
  // Pending since before the sync window (a car rental), booked during the syncs.
  entry({
    key: "rental",
    amount: "210.00",
    counterparty: "Car Rental",
    madeOn: 20,
    pendingFrom: 20,
    bookedOn: 39,
  }),
  // Two pending coffees at one café on two days: when the first books, the second is still
  // pending, and the first's id goes to its booking, not to the other coffee.
  entry({
    key: "latte-38",
    amount: "4.60",
    counterparty: "Cafe Latte",
    madeOn: 38,
    pendingFrom: 38,
    bookedOn: 39,
  }),
  entry({
    key: "latte-39",
    amount: "4.60",
    counterparty: "Cafe Latte",
    madeOn: 39,
    pendingFrom: 39,
    bookedOn: 41,
  }),
  // Made on the last day: still pending when the days end.
  entry({
    key: "bakery",
    amount: "6.40",
    counterparty: "Bakery",
    madeOn: 40,
    pendingFrom: 40,
    bookedOn: 42,
  }),
  // Pending from the first history, booked the next day.
  entry({
    key: "books",
    amount: "18.90",
    counterparty: "Book Shop",
    madeOn: 34,
    pendingFrom: 34,
    bookedOn: 35,
  }),
);

/** A bank that gives entry_reference for booked entries only. */
const bookedReferences = new FakeBankLedger({ references: "booked", pageSize: 5, startDate }).add(
  ...[4, 9, 15, 22, 28, 31].map((day) =>
    entry({
      key: `rent-${day}`,
      amount: `${600 + day}.00`,
      counterparty: "Landlord",
      remittance: "Rent",
      bookedOn: day,
    }),
  ),
  entry({
    key: "pharmacy",
    amount: "12.35",
    counterparty: "Pharmacy",
    madeOn: 36,
    pendingFrom: 36,
    bookedOn: 37,
  }),
  entry({
    key: "pharmacy-2",
    amount: "12.35",
    counterparty: "Pharmacy",
    madeOn: 36,
    pendingFrom: 36,
    bookedOn: 38,
  }),
  entry({
    key: "refund",
    amount: "25.00",
    direction: "CRDT",
    counterparty: "Web Shop",
    remittance: "Refund",
    madeOn: 37,
    pendingFrom: 37,
    bookedOn: 39,
  }),
);

/** A bank that keeps 90 days and cannot do strategy=longest. */
const shortMemory = new FakeBankLedger({
  references: "always",
  keepsDays: 90,
  longest: false,
  startDate,
}).add(
  ...[-30, -10, 6, 25, 36, 39].map((day) =>
    entry({
      key: `transfer-${day}`,
      amount: `${100 + Math.abs(day)}.00`,
      counterparty: "Savings",
      remittance: "Transfer",
      bookedOn: day,
    }),
  ),
);

/**
 * A bank with steady transaction ids, whose account was stored before
 * identities were fingerprints: its rows carry the keyed hash of their
 * transaction_id (set up below), and its syncs must recognize them.
 */
const storedBefore = new FakeBankLedger({
  references: "never",
  stableTransactionIds: true,
  startDate,
}).add(
  ...[2, 10, 18, 24, 29, 32, 33].map((day) =>
    entry({
      key: `card-${day}`,
      amount: `${7 + day}.50`,
      counterparty: "Kiosk",
      bookedOn: day,
    }),
  ),
  entry({
    key: "taxi",
    amount: "23.00",
    counterparty: "Taxi",
    madeOn: 33,
    pendingFrom: 33,
    bookedOn: 36,
  }),
);

const LEDGERS = {
  "acc-no-refs": noReferences,
  "acc-booked-refs": bookedReferences,
  "acc-short": shortMemory,
  "acc-stored-before": storedBefore,
};

let fake: FakeEnableBanking;
let scratch: ScratchDatabase;
let key: string;
let privateKey: string;
const accountIds = new Map<string, string>();

const params = (values: Record<string, string>) => ({ params: Promise.resolve(values) });
const partnerGet = (path: string) =>
  new Request(`${ISSUER}${path}`, { headers: { "X-Api-Key": key } });

interface PartnerTransaction {
  id: string;
  status: string;
  creditDebitIndicator: "CRDT" | "DBIT";
  bookingDate: string | null;
  transactionDate: string | null;
  enc: string;
}

/** Every transaction of the account, as a partner pages through them, envelopes opened. */
async function partnerReads(accountId: string) {
  const read: (TruthEntry & { id: string })[] = [];
  for (let offset = 0; ;) {
    const response = await transactionsRoute.GET(
      partnerGet(`/api/accounts/${accountId}/transactions?limit=4&offset=${offset}`),
      params({ id: accountId }),
    );
    expect(response.status).toBe(200);
    const page = (await response.json()) as { items: PartnerTransaction[]; total: number };
    for (const item of page.items) {
      const payload = openJson<{
        amount: string;
        creditorName: string | null;
        debtorName: string | null;
        remittanceInformation: string | null;
      }>(privateKey, item.enc);
      read.push({
        id: item.id,
        key: "",
        status: item.status === "PDNG" ? "PDNG" : "BOOK",
        amount: payload.amount,
        direction: item.creditDebitIndicator,
        day: (item.status === "PDNG" ? item.transactionDate : item.bookingDate) ?? "",
        counterparty:
          (item.creditDebitIndicator === "DBIT" ? payload.creditorName : payload.debtorName) ?? "",
        remittance: payload.remittanceInformation ?? "",
      });
    }
    offset += page.items.length;
    if (page.items.length === 0 || offset >= page.total) return read;
  }
}

/** An entry's content, without its status: a pending entry and its booked version differ. */
const contentOf = (
  e: Pick<TruthEntry, "status" | "amount" | "direction" | "day" | "counterparty" | "remittance">,
) => [e.status, e.amount, e.direction, e.day, e.counterparty, e.remittance].join(" | ");
const sorted = (values: string[]) => [...values].sort();

async function partnerBalances(accountId: string) {
  const response = await accountsRoute.GET(partnerGet("/api/accounts"));
  const accounts = (await response.json()) as {
    id: string;
    balances: { type: string; enc: string }[];
  }[];
  const account = accounts.find((candidate) => candidate.id === accountId);
  return Object.fromEntries(
    (account?.balances ?? []).map((balance) => [
      balance.type,
      openJson<{ amount: string }>(privateKey, balance.enc).amount,
    ]),
  );
}

async function syncAs(uid: string) {
  const accountId = accountIds.get(uid) ?? "";
  const response = await accountSyncRoute.POST(
    new Request(`${ISSUER}/api/accounts/${accountId}/sync`, {
      method: "POST",
      headers: { "X-Api-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify({ uid }),
    }),
    params({ id: accountId }),
  );
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  const keys = applicationKeyPair();
  fake = await startFakeEnableBanking({ applicationId: APPLICATION_ID, publicKey: keys.publicKey });
  fake.aspsps = [{ name: "Real Bank", country: "FI", psu_types: ["personal"] }];
  fake.session = {
    session_id: "bank-days-session",
    aspsp: { name: "Real Bank", country: "FI" },
    psu_type: "personal",
    access: { valid_until: new Date(Date.now() + 90 * DAY_MS).toISOString() },
    accounts: Object.keys(LEDGERS).map((uid, index) => ({
      uid,
      currency: "EUR",
      cash_account_type: "CACC",
      account_id: { iban: `FI21123456000007${80 + index}` },
      name: "Matti Meikäläinen",
    })),
  };
  Object.assign(fake.ledgers, LEDGERS);
  const settings = {
    UPSTREAM: "enablebanking",
    ENABLE_BANKING_API_URL: `${fake.url}/`,
    ENABLE_BANKING_APPLICATION_ID: APPLICATION_ID,
    ENABLE_BANKING_PRIVATE_KEY: keys.privateKey,
  };
  scratch = await useScratchDatabase("bank_days", settings);
  const partner = await partnerWithRecipientKey();
  privateKey = partner.keys.privateKeyPkcs8B64;
  const minted = await mintApiKey(partner.client);
  key = minted.key;
  const tenant = await partnerTenantOf(partner.client, minted.user);

  for (const ledger of Object.values(LEDGERS)) ledger.today = FIRST_SYNC_DAY - 1;
  const upstream = enableBankingUpstream({
    apiUrl: settings.ENABLE_BANKING_API_URL,
    applicationId: APPLICATION_ID,
    privateKey: keys.privateKey,
  });
  const session = await upstream.completeAuthorization({ code: FAKE_AUTHORIZATION_CODE });
  const stored = await storeBankSession({
    tenantId: tenant.id,
    sealingKey: partner.keys.publicKeyRawB64,
    upstream,
    session,
  });
  for (const [index, uid] of Object.keys(LEDGERS).entries()) {
    accountIds.set(uid, stored.accountIds[index] ?? "");
  }
  // The account as an earlier version stored it: each row under its transaction_id's hash.
  const before = accountIds.get("acc-stored-before") ?? "";
  for (const row of await db().transaction.findMany({ where: { accountId: before } })) {
    const { rawJson } = openJson<{ rawJson: string }>(privateKey, row.enc);
    const { transaction_id } = JSON.parse(rawJson) as { transaction_id: string };
    await db().transaction.update({
      where: { id: row.id },
      data: { dedupeHash: keyedHash("transaction-dedupe", transaction_id) },
    });
  }
  await db().account.update({ where: { id: before }, data: { identityVersion: 1 } });
});

afterAll(async () => {
  await scratch?.release();
  await fake?.close();
});

describe("a consent's days against banks as the reference describes them", () => {
  it("reads what each bank holds after the first history and after every day's sync", async () => {
    const bookedIds = new Map<string, string>();
    const pendingIds = new Map<string, string>();
    const previousKeys = new Map<string, Set<string>>();

    async function check(uid: string, ledger: FakeBankLedger, label: string) {
      const accountId = accountIds.get(uid) ?? "";
      const truth = ledger.truth();
      const read = await partnerReads(accountId);
      expect(sorted(read.map(contentOf)), `${label}: ${uid}`).toEqual(sorted(truth.map(contentOf)));
      const balances = await partnerBalances(accountId);
      const expected = ledger.balances();
      expect(balances, `${label}: ${uid} balances`).toEqual({
        CLBD: expected.booked,
        ITAV: expected.available,
      });
      // The id of a booked transaction never changes; a pending one keeps its id once booked.
      const idsByContent = new Map(read.map((row) => [contentOf(row), row.id]));
      for (const entry of truth) {
        const id = idsByContent.get(contentOf(entry)) ?? "";
        const known = `${uid}/${entry.key}`;
        if (entry.status === "BOOK") {
          const earlier = bookedIds.get(known) ?? pendingIds.get(known);
          if (earlier) expect(id, `${label}: ${known} keeps its id`).toBe(earlier);
          bookedIds.set(known, id);
        } else {
          pendingIds.set(known, id);
        }
      }
    }

    for (const [uid, ledger] of Object.entries(LEDGERS)) {
      await check(uid, ledger, "first history");
      previousKeys.set(uid, new Set(ledger.truth().map((entry) => entry.key)));
    }
    // The bank that keeps 90 days gave its first history from 90 days back, and kept that.
    const short = await db().account.findUniqueOrThrow({
      where: { id: accountIds.get("acc-short") },
    });
    expect([short.historyPending, short.historyDays]).toEqual([false, 90]);

    for (let day = FIRST_SYNC_DAY; day <= TODAY; day += 1) {
      for (const [uid, ledger] of Object.entries(LEDGERS)) {
        ledger.today = day;
        const outcome = await syncAs(uid);
        const keys = new Set(ledger.truth().map((entry) => entry.key));
        const fresh = [...keys].filter((known) => !previousKeys.get(uid)?.has(known));
        expect(outcome, `day ${day}: ${uid}`).toMatchObject({
          status: 200,
          body: { newTransactions: fresh.length },
        });
        previousKeys.set(uid, keys);
        await check(uid, ledger, `day ${day}`);
      }
    }
    // The dinner booked with its tip under the id it had while pending.
    expect(bookedIds.get("acc-no-refs/dinner")).toBe(pendingIds.get("acc-no-refs/dinner"));
    // The account stored before carries the new identities from its first sync on.
    const before = await db().account.findUniqueOrThrow({
      where: { id: accountIds.get("acc-stored-before") },
    });
    expect(before.identityVersion).toBe(2);
  });

  it("stores what pending entries are matched on as keyed hashes only, never in the clear", async () => {
    const rows = await db().transaction.findMany({
      where: { accountId: { in: [...accountIds.values()] } },
    });
    const pending = rows.filter((row) => row.status === "PDNG");
    expect(pending.length).toBeGreaterThan(0);
    for (const row of pending) {
      expect(row.matchHash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.amountHash).toMatch(/^[0-9a-f]{64}$/);
    }
    // A booked row keeps no matching hash at all.
    expect(rows.filter((row) => row.status === "BOOK" && row.matchHash !== null)).toEqual([]);
    // Counterparties and amounts are only in the envelopes.
    const clear = JSON.stringify(rows.map(({ enc: _sealed, ...columns }) => columns));
    for (const secret of ["Trattoria", "Cafe Aroma", "46.00", "3.80", "210.00"]) {
      expect(clear).not.toContain(secret);
    }
  });
});
