import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as accountsRoute from "@/app/api/accounts/route";
import * as accountSyncRoute from "@/app/api/accounts/[id]/sync/route";
import * as transactionsRoute from "@/app/api/accounts/[id]/transactions/route";
import { connectBank, partnerTenantOf, partnerWithRecipientKey } from "@/test/bank-data";
import { ISSUER, mintApiKey } from "@/test/oauth-fixtures";
import { openJson } from "../crypto/envelope";
import { sandboxUpstream } from "../upstream/sandbox";
import { MCC } from "../upstream/sandbox/merchants";
import type { UpstreamTransaction } from "../upstream/types";

/**
 * A partner tries its reconciliation on the sandbox bank whose card payments
 * are pending until they book (lib/upstream/sandbox/pending.ts), as /docs/data
 * tells it to: connect it, then sync on consecutive days. The sandbox the
 * service syncs with reads the real clock, so the clock is moved (Date only;
 * timers, the database and Redis run as ever). Every day, what the partner
 * reads, envelopes opened, is what the bank reports; a pending payment keeps
 * its id when it books (with its tip, for a restaurant) and a released
 * deposit is gone.
 */

const BANK = { name: "Sandbox Scenario DK: pending card payments", country: "DK" };
const DAY_MS = 86_400_000;
/** The history the partner holds reaches back this far; the bank is compared over it. */
const FROM_DAYS = 150;

const params = (values: Record<string, string>) => ({ params: Promise.resolve(values) });

interface Read {
  id: string;
  status: "BOOK" | "PDNG";
  amount: string;
  day: string;
  counterparty: string;
  remittance: string;
  mcc: string | null;
}

let key: string;
let privateKey: string;
let tenantId: string;
let sealingKey: string;

beforeAll(async () => {
  const partner = await partnerWithRecipientKey();
  privateKey = partner.keys.privateKeyPkcs8B64;
  sealingKey = partner.keys.publicKeyRawB64;
  const minted = await mintApiKey(partner.client);
  key = minted.key;
  tenantId = (await partnerTenantOf(partner.client, minted.user)).id;
});

afterEach(() => {
  vi.useRealTimers();
});

const get = (path: string) => new Request(`${ISSUER}${path}`, { headers: { "X-Api-Key": key } });

/** Every transaction of the account, paged as a partner does, envelopes opened. */
async function partnerReads(accountId: string): Promise<Read[]> {
  const read: Read[] = [];
  for (let offset = 0; ;) {
    const response = await transactionsRoute.GET(
      get(`/api/accounts/${accountId}/transactions?limit=100&offset=${offset}`),
      params({ id: accountId }),
    );
    expect(response.status).toBe(200);
    const page = (await response.json()) as {
      items: {
        id: string;
        status: string;
        bookingDate: string | null;
        transactionDate: string | null;
        enc: string;
      }[];
      total: number;
    };
    for (const item of page.items) {
      const sealed = openJson<{
        amount: string;
        creditorName: string | null;
        debtorName: string | null;
        remittanceInformation: string | null;
        merchantCategoryCode: string | null;
      }>(privateKey, item.enc);
      const pending = item.status === "PDNG";
      read.push({
        id: item.id,
        status: pending ? "PDNG" : "BOOK",
        amount: sealed.amount,
        day: (pending ? item.transactionDate : item.bookingDate) ?? "",
        counterparty: sealed.creditorName ?? sealed.debtorName ?? "",
        remittance: sealed.remittanceInformation ?? "",
        mcc: sealed.merchantCategoryCode,
      });
    }
    offset += page.items.length;
    if (page.items.length === 0 || offset >= page.total) return read;
  }
}

/** What the bank reports today (the sandbox at the moved clock), from `dateFrom`. */
async function bankReports(uid: string, dateFrom: string) {
  const bank = sandboxUpstream({ now: () => new Date(), baseUrl: ISSUER });
  const reported: UpstreamTransaction[] = [];
  let continuationKey: string | undefined;
  do {
    const page = await bank.getTransactions(uid, { dateFrom, continuationKey });
    reported.push(...page.transactions);
    continuationKey = page.continuationKey ?? undefined;
  } while (continuationKey);
  const balances = await bank.getBalances(uid);
  return { reported, balances };
}

const contentOf = (e: Omit<Read, "id">) =>
  [e.status, e.amount, e.day, e.counterparty, e.remittance].join(" | ");
const reportedContent = (t: UpstreamTransaction) =>
  contentOf({
    status: t.status,
    amount: t.amount,
    day: (t.status === "PDNG" ? t.transactionDate : t.bookingDate) ?? "",
    counterparty: t.creditorName ?? t.debtorName ?? "",
    remittance: t.remittanceInformation ?? "",
    mcc: t.merchantCategoryCode,
  });
const sorted = (values: string[]) => [...values].sort();
const cents = (amount: string) => Math.round(Number(amount) * 100);

describe("the sandbox bank with pending card payments, synced day by day", () => {
  it("books pending payments under their ids, drops the released deposit, never duplicates", async () => {
    const start = Date.now() - 2 * DAY_MS;
    const dayAt = (day: number) => new Date(start + (day - 1) * DAY_MS);
    const iso = (day: number) => dayAt(day).toISOString().slice(0, 10);
    const dateFrom = new Date(start - FROM_DAYS * DAY_MS).toISOString().slice(0, 10);
    vi.useFakeTimers({ toFake: ["Date"] });

    /** The partner's copy is the bank's, entry for entry, balances included. */
    async function partnerMatchesBank(accountId: string, uid: string, label: string) {
      const read = await partnerReads(accountId);
      const bank = await bankReports(uid, dateFrom);
      expect(sorted(read.filter((r) => r.day >= dateFrom).map(contentOf)), label).toEqual(
        sorted(bank.reported.map(reportedContent)),
      );
      expect(new Set(read.map((r) => r.id)).size, `${label}: one id per row`).toBe(read.length);
      const accounts = (await (await accountsRoute.GET(get("/api/accounts"))).json()) as {
        id: string;
        balances: { type: string; enc: string }[];
      }[];
      const balances = Object.fromEntries(
        (accounts.find((account) => account.id === accountId)?.balances ?? []).map((b) => [
          b.type,
          openJson<{ amount: string }>(privateKey, b.enc).amount,
        ]),
      );
      expect(balances, `${label}: balances`).toEqual(
        Object.fromEntries(bank.balances.map((b) => [b.balanceType, b.amount])),
      );
      // Available is booked less what the pending payments hold.
      const held = read.filter((r) => r.status === "PDNG").reduce((s, r) => s + cents(r.amount), 0);
      expect(cents(balances.ITBD ?? "") - cents(balances.ITAV ?? ""), label).toBe(held);
      return read;
    }

    async function syncOn(day: number, accountId: string, uid: string) {
      vi.setSystemTime(dayAt(day));
      const response = await accountSyncRoute.POST(
        new Request(`${ISSUER}/api/accounts/${accountId}/sync`, {
          method: "POST",
          headers: { "X-Api-Key": key, "Content-Type": "application/json" },
          body: JSON.stringify({ uid }),
        }),
        params({ id: accountId }),
      );
      expect(response.status).toBe(200);
      return (await response.json()) as { newTransactions: number };
    }

    // Day 1: connected; the first history holds the payments pending today.
    vi.setSystemTime(dayAt(1));
    const { session, stored } = await connectBank(tenantId, sealingKey, { bank: BANK });
    const uid = session.accounts[0]?.uid ?? "";
    const accountId = stored.accountIds[0] ?? "";
    const day1 = await partnerMatchesBank(accountId, uid, "day 1");
    const pending1 = day1.filter((r) => r.status === "PDNG");
    expect(pending1.length).toBeGreaterThanOrEqual(4);

    // Day 2: each pending payment is booked under its id, still pending, or (a deposit) gone.
    const synced2 = await syncOn(2, accountId, uid);
    const day2 = await partnerMatchesBank(accountId, uid, "day 2");
    const byId2 = new Map(day2.map((r) => [r.id, r]));
    const outcome = { tipped: 0, sameAmount: 0, stillPending: 0, released: 0 };
    for (const before of pending1) {
      const after = byId2.get(before.id);
      if (!after) {
        expect(before.mcc, `${before.counterparty}: only a deposit vanishes`).toBe(MCC.hotels);
        expect(before.day).toBe(iso(0));
        expect(day2.some((r) => r.counterparty === before.counterparty)).toBe(false);
        outcome.released += 1;
      } else if (after.status === "PDNG") {
        expect(contentOf(after)).toBe(contentOf(before));
        outcome.stillPending += 1;
      } else {
        expect(after).toMatchObject({ day: iso(2), counterparty: before.counterparty });
        if (before.mcc === MCC.restaurants) {
          expect(cents(after.amount)).toBeGreaterThan(cents(before.amount));
          outcome.tipped += 1;
        } else {
          expect(after.amount).toBe(before.amount);
          outcome.sameAmount += 1;
        }
      }
    }
    expect(outcome.tipped).toBeGreaterThanOrEqual(1);
    expect(outcome.sameAmount).toBeGreaterThanOrEqual(1);
    expect(outcome.stillPending).toBeGreaterThanOrEqual(1);
    expect(outcome.released).toBe(1);
    // What booked is no new transaction to the partner: only ids it did not hold are.
    const known1 = new Set(day1.map((r) => r.id));
    expect(synced2.newTransactions).toBe(day2.filter((r) => !known1.has(r.id)).length);

    // Day 3: still one row per payment, and every booked row as it was on day 2.
    const synced3 = await syncOn(3, accountId, uid);
    const day3 = await partnerMatchesBank(accountId, uid, "day 3");
    const byId3 = new Map(day3.map((r) => [r.id, r]));
    for (const booked of day2.filter((r) => r.status === "BOOK")) {
      expect(byId3.get(booked.id), booked.counterparty).toEqual(booked);
    }
    const known2 = new Set(day2.map((r) => r.id));
    expect(synced3.newTransactions).toBe(day3.filter((r) => !known2.has(r.id)).length);
    // The deposit made on day 1 was released on day 3.
    const deposit1 = pending1.find((r) => r.mcc === MCC.hotels && r.day === iso(1));
    expect(deposit1 && byId2.get(deposit1.id)?.status).toBe("PDNG");
    expect(deposit1 && byId3.has(deposit1.id)).toBe(false);
  });
});
