import { describe, expect, it } from "vitest";
import type { UpstreamTransaction } from "../upstream/types";
import { canonicalAmount, TransactionIdentities } from "./identity";
import { firstHistoryWindows, historyDaysAfter, syncWindows } from "./windows";

const NOW = new Date("2026-11-27T09:00:00Z");

describe("the days a read asks for", () => {
  it("a first history: longest, then 180, 90 and 30 days", () => {
    expect(firstHistoryWindows(NOW)).toEqual([
      { dateFrom: "2026-05-31", strategy: "longest" },
      { dateFrom: "2026-05-31" },
      { dateFrom: "2026-08-29" },
      { dateFrom: "2026-10-28" },
    ]);
  });

  it("a first history of a bank that allowed 90 days asks for no more", () => {
    expect(firstHistoryWindows(NOW, 90)).toEqual([
      { dateFrom: "2026-08-29" },
      { dateFrom: "2026-10-28" },
    ]);
  });

  it("a sync: 14 days before the last one, shorter windows after", () => {
    const windows = syncWindows({
      now: NOW,
      lastSyncedAt: new Date("2026-11-26T08:00:00Z"),
      oldestPendingDay: null,
      historyDays: null,
    });
    expect(windows).toEqual([{ dateFrom: "2026-11-12" }]);
  });

  it("a sync reaches back to the oldest pending entry, within 35 days", () => {
    const read = (oldestPendingDay: string) =>
      syncWindows({
        now: NOW,
        lastSyncedAt: new Date("2026-11-26T08:00:00Z"),
        oldestPendingDay,
        historyDays: null,
      })[0]?.dateFrom;
    expect(read("2026-11-20")).toBe("2026-11-12");
    expect(read("2026-11-02")).toBe("2026-11-02");
    expect(read("2026-09-01")).toBe("2026-10-23");
  });

  it("a sync after months without one stays within the depth the bank allowed", () => {
    const windows = syncWindows({
      now: NOW,
      lastSyncedAt: new Date("2026-06-01T08:00:00Z"),
      oldestPendingDay: null,
      historyDays: 90,
    });
    expect(windows).toEqual([{ dateFrom: "2026-08-29" }, { dateFrom: "2026-10-28" }]);
  });

  it("keeps the accepted depth only when a longer window was refused", () => {
    const windows = firstHistoryWindows(NOW);
    expect(historyDaysAfter(windows, { ...windows[0]! }, NOW, null)).toBeNull();
    expect(historyDaysAfter(windows, { dateFrom: "2026-08-29" }, NOW, null)).toBe(90);
  });
});

const coffee: UpstreamTransaction = {
  entryReference: null,
  transactionId: "T-1",
  amount: "3.80",
  currency: "EUR",
  creditDebitIndicator: "DBIT",
  status: "BOOK",
  bookingDate: "2026-11-20",
  valueDate: "2026-11-20",
  transactionDate: "2026-11-20",
  bankTransactionCode: null,
  creditorName: "Cafe Aroma",
  creditorIban: null,
  creditorBban: null,
  creditorAgentBic: null,
  debtorName: null,
  debtorIban: null,
  debtorBban: null,
  debtorAgentBic: null,
  remittanceInformation: "Card purchase",
  note: null,
  referenceNumber: null,
  merchantCategoryCode: null,
  balanceAfter: null,
  balanceAfterCurrency: null,
  exchangeRate: null,
  rawJson: "{}",
};

describe("a transaction's identity", () => {
  it("does not change with the transaction_id of the read", () => {
    const first = new TransactionIdentities().of(coffee);
    const again = new TransactionIdentities().of({ ...coffee, transactionId: "T-9" });
    expect(again?.dedupeHash).toBe(first?.dedupeHash);
  });

  it("numbers identical twins within a read, the same way in every read", () => {
    const read = () => {
      const identities = new TransactionIdentities();
      return [coffee, coffee, coffee].map((entry) => identities.of(entry)?.dedupeHash);
    };
    const hashes = read();
    expect(new Set(hashes).size).toBe(3);
    expect(read()).toEqual(hashes);
  });

  it("is the entry_reference when given; the same reference twice in a read is one entry", () => {
    const identities = new TransactionIdentities();
    const referenced = { ...coffee, entryReference: "E-1" };
    const first = identities.of(referenced);
    expect(identities.of({ ...referenced, amount: "4.00" })).toBeNull();
    expect(new TransactionIdentities().of({ ...referenced, amount: "9.99" })?.dedupeHash).toBe(
      first?.dedupeHash,
    );
  });

  it("differs for a pending entry and its booked version", () => {
    const booked = new TransactionIdentities().of(coffee);
    const pending = new TransactionIdentities().of({ ...coffee, status: "PDNG" });
    expect(pending?.dedupeHash).not.toBe(booked?.dedupeHash);
    expect(pending?.matchValue).toBe(booked?.matchValue);
  });

  it("reads one amount one way", () => {
    expect(["12.50", "012.5", "+12.500"].map(canonicalAmount)).toEqual(["12.5", "12.5", "12.5"]);
    expect(["7.00", "0.40", "0"].map(canonicalAmount)).toEqual(["7", "0.4", "0"]);
  });
});
