import { describe, expect, it } from "vitest";
import type { UpstreamTransaction } from "../types";
import { COUNTERPARTY_BANKS, SANDBOX_BANKS, type SandboxBank } from "./banks";
import { approveSandboxAuthorization } from "./consent";
import { sandboxUpstream } from "./index";
import { MCC } from "./merchants";

/**
 * The scenario bank whose card payments are pending until they book
 * (card-day.ts, pending.ts), read by the sandbox's own clock day after day.
 */

const BANK = { name: "Sandbox Scenario DK: pending card payments", country: "DK" };
const DAY_MS = 86_400_000;
const FIRST = new Date("2026-11-20T09:30:00Z");
const at = (day: number) => new Date(FIRST.getTime() + day * DAY_MS);
const isoDay = (day: number) => at(day).toISOString().slice(0, 10);
const bankOn = (day: number) => sandboxUpstream({ now: () => at(day), baseUrl: "http://x.test" });

async function connect(): Promise<string> {
  const bank = bankOn(0);
  const { authorizationId } = await bank.startAuthorization({
    aspsp: BANK,
    psuType: "personal",
    redirectUrl: "http://x.test/banks/callback",
    state: "s",
    validUntil: at(60),
    language: "da",
  });
  const back = new URL(approveSandboxAuthorization(authorizationId, at(0)) ?? "");
  const session = await bank.completeAuthorization({ code: back.searchParams.get("code") ?? "" });
  return session.accounts[0]?.uid ?? "";
}

async function read(uid: string, day: number, dateFrom = "2026-10-01", dateTo?: string) {
  const bank = bankOn(day);
  const pages: UpstreamTransaction[][] = [];
  let continuationKey: string | undefined;
  do {
    const page = await bank.getTransactions(uid, { dateFrom, dateTo, continuationKey });
    pages.push(page.transactions);
    continuationKey = page.continuationKey ?? undefined;
  } while (continuationKey);
  return pages;
}

const pendingOf = (list: UpstreamTransaction[]) => list.filter((t) => t.status === "PDNG");
const bookedOf = (list: UpstreamTransaction[]) => list.filter((t) => t.status === "BOOK");
const cents = (amount: string) => Math.round(Number(amount) * 100);

describe("Sandbox Scenario DK: pending card payments", () => {
  it("is a test scenario for personal accounts", async () => {
    const listed = (await bankOn(0).listBanks({ country: "DK" })).find(
      (bank) => bank.name === BANK.name,
    );
    expect(listed).toMatchObject({ testOnly: true, psuTypes: ["personal"] });
  });

  it("holds no counterparty's account, so every other bank's statements stay as they were", () => {
    const banks: readonly SandboxBank[] = SANDBOX_BANKS;
    const scenario = banks.find((bank) => bank.name === BANK.name);
    expect(scenario?.pendingCardPayments).toBe(true);
    expect(COUNTERPARTY_BANKS).toEqual(banks.filter((bank) => bank !== scenario));
  });

  it("reports today's card payments as pending, then books or releases them on later days", async () => {
    const uid = await connect();
    const seen = { tipped: 0, sameAmount: 0, released: 0, stillPending: 0 };
    const reads = await Promise.all(
      [0, 1, 2, 3, 4, 5, 6].map(async (day) => (await read(uid, day)).flat()),
    );
    for (const [day, list] of reads.entries()) {
      const pending = pendingOf(list);
      // After every booked entry, as a bank that lists them apart; made today or yesterday.
      expect(list.slice(list.length - pending.length)).toEqual(pending);
      for (const each of pending) {
        expect(each).toMatchObject({
          entryReference: null,
          bookingDate: null,
          valueDate: null,
          balanceAfter: null,
          creditDebitIndicator: "DBIT",
          bankTransactionCode: "PMNT-CCRD-POSD",
        });
        expect([isoDay(day), isoDay(day - 1)]).toContain(each.transactionDate);
        expect(JSON.parse(each.rawJson)).toMatchObject({
          status: "PDNG",
          entry_reference: null,
          booking_date: null,
          transaction_date: each.transactionDate,
        });
      }
      // Every day: a restaurant bill, a grocery purchase and a hotel's deposit made that day.
      for (const mcc of [MCC.restaurants, MCC.groceries, MCC.hotels]) {
        const made = pending.filter((t) => t.merchantCategoryCode === mcc);
        expect(made.some((t) => t.transactionDate === isoDay(day))).toBe(true);
      }
      // No card payment books on the day it was made (a subscription the merchant charges does).
      const spending: (string | null)[] = [
        MCC.restaurants,
        MCC.groceries,
        MCC.transit,
        MCC.fuel,
        MCC.electronics,
        MCC.books,
      ];
      const sameDay = bookedOf(list).filter(
        (t) => spending.includes(t.merchantCategoryCode) && t.bookingDate === t.transactionDate,
      );
      expect(sameDay).toEqual([]);

      const next = reads[day + 1];
      if (!next) continue;
      const claimed = new Set<UpstreamTransaction>();
      for (const each of pending) {
        const same = (t: UpstreamTransaction) =>
          !claimed.has(t) &&
          t.creditorName === each.creditorName &&
          t.transactionDate === each.transactionDate;
        const tip = each.merchantCategoryCode === MCC.restaurants;
        const again = pendingOf(next).find((t) => same(t) && t.amount === each.amount);
        // The booked version: its own reference, dated the day after, the tip added.
        const booked = bookedOf(next).find(
          (t) =>
            same(t) &&
            t.bookingDate === isoDay(day + 1) &&
            (tip ? cents(t.amount) > cents(each.amount) : t.amount === each.amount),
        );
        if (again) {
          expect(again).toEqual(each);
          claimed.add(again);
          seen.stillPending += 1;
        } else if (booked) {
          expect(booked.entryReference).toMatch(/^SBX/);
          claimed.add(booked);
          if (tip) seen.tipped += 1;
          else seen.sameAmount += 1;
        } else {
          // Released: a deposit made the day before, never booked later either.
          expect(each.merchantCategoryCode).toBe(MCC.hotels);
          expect(each.transactionDate).toBe(isoDay(day - 1));
          for (const later of reads.slice(day + 1)) expect(later.filter(same)).toEqual([]);
          seen.released += 1;
        }
      }
      // Nothing made by then turns up pending later that was not pending then.
      const madeBefore = pendingOf(next).filter((t) => (t.transactionDate ?? "") <= isoDay(day));
      expect(madeBefore.filter((t) => !claimed.has(t))).toEqual([]);
    }
    expect(seen.tipped).toBeGreaterThanOrEqual(6);
    expect(seen.sameAmount).toBeGreaterThanOrEqual(6);
    expect(seen.released).toBe(6);
    expect(seen.stillPending).toBeGreaterThanOrEqual(6);
  });

  it("gives the same read every time, the pending entries on its last page and within its window", async () => {
    const uid = await connect();
    const pages = await read(uid, 0, "2026-06-01");
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages.slice(0, -1)) expect(pendingOf(page)).toEqual([]);
    const pending = pendingOf(pages.at(-1) ?? []);
    expect(pending.length).toBeGreaterThanOrEqual(4);
    expect(await read(uid, 0, "2026-06-01")).toEqual(pages);
    // A read that ends before today is of the past; one from today leaves out yesterday's.
    expect(pendingOf((await read(uid, 0, "2026-06-01", isoDay(-1))).flat())).toEqual([]);
    const fromToday = pendingOf((await read(uid, 0, isoDay(0))).flat());
    expect(fromToday).toEqual(pending.filter((t) => t.transactionDate === isoDay(0)));
  });

  it("holds the pending debits off the available balance", async () => {
    const uid = await connect();
    for (const day of [0, 1, 2]) {
      const [booked, available] = await bankOn(day).getBalances(uid);
      const list = (await read(uid, day)).flat();
      expect(booked).toMatchObject({
        balanceType: "ITBD",
        amount: bookedOf(list)[0]?.balanceAfter,
      });
      const held = pendingOf(list).reduce((sum, t) => sum + cents(t.amount), 0);
      expect(held).toBeGreaterThan(0);
      expect(available?.balanceType).toBe("ITAV");
      expect(cents(available?.amount ?? "")).toBe(cents(booked?.amount ?? "") - held);
    }
  });
});
