import { beforeEach, describe, expect, it } from "vitest";
import { SideConnection } from "@/test/db-pressure";
import { loadBankAccountFixture } from "@/test/load-bank-account";
import { generateKeyPair } from "../crypto/envelope";
import { db } from "../db/client";
import { setSetting } from "../env";
import type { UpstreamTransaction } from "../upstream/types";
import { SYNC_RETRY_AFTER_SECONDS, SyncDeadline } from "./budget";
import { MAX_FETCHED_BYTES } from "./fetch-and-store";
import { TransactionSealer } from "./write";

/**
 * A sync's limits against a real HTTP bank (the Enable Banking fake): its
 * overall deadline across pages and the write, the size of one answer and
 * of all pages together. Past any of them nothing of the account is stored.
 */

const account = loadBankAccountFixture("limits");
const { uid } = account;

beforeEach(() => {
  account.bank.fake.delayMs = 0;
  setSetting("SYNC_DEADLINE_SECONDS", "");
});

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `pages` pages of `perPage` new transactions each, of about `bytesEach` bytes. */
function servePages(pages: number, perPage: number, bytesEach = 300) {
  const tag = Math.random().toString(36).slice(2);
  account.bank.fake.transactionPages[uid] = Array.from({ length: pages }, (_, page) => ({
    transactions: Array.from({ length: perPage }, (_, index) => ({
      entry_reference: `${tag}-${page}-${index}`,
      transaction_amount: { amount: "9.95", currency: "EUR" },
      credit_debit_indicator: "DBIT",
      status: "BOOK",
      booking_date: "2026-11-02",
      remittance_information: ["r".repeat(bytesEach)],
    })),
    continuation_key: page < pages - 1 ? `${tag}-ck-${page + 1}` : null,
  }));
}

const sync = () => account.sync();

/** What a sync could change: the transactions, the balances' ciphertext, the last sync. */
async function stored() {
  const { accountId, connectionId } = account;
  const [transactions, balances, connection] = await Promise.all([
    db().transaction.count({ where: { accountId } }),
    db().balance.findMany({ where: { accountId }, orderBy: { balanceType: "asc" } }),
    db().connection.findUniqueOrThrow({ where: { id: connectionId } }),
  ]);
  return { transactions, balances: balances.map((b) => b.enc), at: connection.lastSyncedAt };
}

async function expectTransient(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("Retry-After")).toBe(String(SYNC_RETRY_AFTER_SECONDS));
  expect(await response.json()).toEqual({ status: 503, reason: "transient" });
}

describe("a sync's overall deadline", () => {
  it("pages arriving past it: 503 transient with Retry-After, nothing stored", async () => {
    servePages(8, 5);
    account.bank.fake.delayMs = 300;
    setSetting("SYNC_DEADLINE_SECONDS", "1");
    const before = await stored();
    await expectTransient(await sync());
    expect(await stored()).toEqual(before);

    account.bank.fake.delayMs = 0;
    setSetting("SYNC_DEADLINE_SECONDS", "");
    expect(await (await sync()).json()).toMatchObject({ newTransactions: 40 });
  });

  it("a write held past it is rolled back, balances included", async () => {
    servePages(2, 10);
    const before = await stored();
    const side = await SideConnection.open(account.scratch.url);
    await side.lock('LOCK TABLE "Transaction" IN SHARE MODE');
    setSetting("SYNC_DEADLINE_SECONDS", "2");
    try {
      await expectTransient(await sync());
    } finally {
      await side.unlock();
      await side.close();
    }
    expect(await stored()).toEqual(before);
  });
});

describe("writing while the pages arrive", () => {
  /** Whether a backend other than `side`'s holds a write lock on the transactions table now. */
  async function transactionsBeingWritten(side: SideConnection): Promise<boolean> {
    const { rows } = await side.client.query<{ writers: number }>(
      `SELECT count(*)::int AS writers FROM pg_locks
        WHERE relation = '"Transaction"'::regclass AND mode = 'RowExclusiveLock'
          AND pid <> pg_backend_pid()`,
    );
    return (rows[0]?.writers ?? 0) > 0;
  }

  it("inserts the first chunks before the last page; a bank error after them stores nothing", async () => {
    // 3 × 1 500 transactions: the first chunk of 2 000 is sealed and inserted while
    // the pages after it are awaited; the last page links to a page the bank does not know.
    servePages(3, 1500);
    const pages = account.bank.fake.transactionPages[uid] ?? [];
    const last = pages.at(-1);
    if (last) last.continuation_key = "forged";
    account.bank.fake.delayMs = 700;
    const before = await stored();
    const side = await SideConnection.open(account.scratch.url);
    try {
      const answer = sync();
      let writtenBeforeTheEnd = false;
      const done = answer.then(() => "done" as const);
      while (!writtenBeforeTheEnd) {
        if ((await Promise.race([done, delay(50)])) === "done") break;
        writtenBeforeTheEnd = await transactionsBeingWritten(side);
      }
      const response = await answer;
      expect(writtenBeforeTheEnd).toBe(true);
      expect(response.status).toBe(502);
      expect(await response.json()).toEqual({
        status: 502,
        reason: "bank_error",
        bankErrorCode: "WRONG_CONTINUATION_KEY",
      });
    } finally {
      await side.close();
    }
    expect(await stored()).toEqual(before);

    // The same pages without the forged link are stored, all of them.
    if (last) last.continuation_key = null;
    account.bank.fake.delayMs = 0;
    expect(await (await sync()).json()).toMatchObject({ newTransactions: 4500 });
  });
});

describe("the size of what a sync reads", () => {
  it("a 50 MB page from the bank: 502 bank_error, nothing stored", async () => {
    servePages(1, 50_000, 1000);
    const before = await stored();
    const response = await sync();
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ status: 502, reason: "bank_error" });
    expect(await stored()).toEqual(before);
  });

  it("pages that each fit but together pass the cap: 502 bank_error, nothing stored", async () => {
    const perPage = 6000;
    const pages = Math.ceil(MAX_FETCHED_BYTES / (perPage * 1000)) + 1;
    servePages(pages, perPage, 1000);
    const before = await stored();
    const response = await sync();
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ status: 502, reason: "bank_error" });
    expect(await stored()).toEqual(before);
    // The bank serves and the sync parses more than the cap in all: minutes on a busy machine.
  }, 120_000);
});

describe("sealing a large account", () => {
  it("lets timers and I/O run between its slices", async () => {
    const keys = generateKeyPair();
    const transactions = Array.from({ length: 1000 }, (_, index): UpstreamTransaction => ({
      entryReference: `E${index}`,
      transactionId: null,
      amount: "1.00",
      currency: "EUR",
      creditDebitIndicator: "DBIT",
      status: "BOOK",
      bookingDate: "2026-11-01",
      valueDate: null,
      transactionDate: null,
      bankTransactionCode: null,
      creditorName: "Shop",
      creditorIban: null,
      creditorBban: null,
      creditorAgentBic: null,
      debtorName: null,
      debtorIban: null,
      debtorBban: null,
      debtorAgentBic: null,
      remittanceInformation: null,
      note: null,
      referenceNumber: null,
      merchantCategoryCode: null,
      balanceAfter: null,
      balanceAfterCurrency: null,
      exchangeRate: null,
      rawJson: "{}",
    }));
    const order: string[] = [];
    const sealer = new TransactionSealer(keys.publicKeyRawB64, new SyncDeadline(60_000));
    const sealing = sealer.add(transactions).then(async () => {
      // The envelopes are sealed in worker threads: the event loop stays free meanwhile.
      const envelopes = (await Promise.all(sealer.finish())).flat();
      order.push(`sealed ${envelopes.length}`);
    });
    setTimeout(() => order.push("timer"), 0);
    await sealing;
    expect(order).toEqual(["timer", "sealed 1000"]);
  });
});
