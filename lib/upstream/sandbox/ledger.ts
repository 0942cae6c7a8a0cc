import type { UpstreamBalance } from "../types";
import type { SandboxAccount } from "./accounts";
import { businessDay, merchantDay } from "./business-day";
import { pendingCardDay } from "./card-day";
import { isPayday, paydayOnOrBefore, toIsoDay } from "./calendar";
import {
  counterpartyAccount,
  draft,
  profileOf,
  toLocalMinor,
  type DayDrafts,
  type Draft,
} from "./drafts";
import { keptValues } from "./kept";
import { MERCHANTS } from "./merchants";
import { personalDay } from "./personal-day";
import { savingsBalanceAtEndOf, savingsDay, savingsProfileOf } from "./savings-day";
import { seededRandom } from "./seeded-random";

/**
 * Running balances. A current or business account sweeps to (or from) its
 * owner's savings on every payday, right after the salary, so that the
 * balance is then exactly the account's target: the balance at any day
 * follows from the two paydays before it, without replaying years of
 * history, and `balanceAfter` of a transaction never changes once generated.
 * A savings account's balance is a closed form (savings-day.ts).
 */

export interface LedgerEntry {
  day: number;
  /** Position within the day, oldest first; stable for a given day. */
  sequence: number;
  draft: Draft;
  balanceAfterMinor: number;
}

export interface Ledger {
  /** Oldest first. */
  entries: LedgerEntry[];
  /** Booked balance at the end of the last day. */
  closingMinor: number;
}

const isSavings = (account: SandboxAccount) =>
  account.kind === "savings" || account.kind === "business-savings";

function sweepDraft(account: SandboxAccount, amountMinor: number): Draft {
  const words = MERCHANTS[account.country].words;
  return draft({
    amountMinor,
    counterparty: counterpartyAccount(account, account.ownerName),
    remittance: amountMinor > 0 ? words.fromSavings : words.toSavings,
    bankTransactionCode: amountMinor > 0 ? "PMNT-RCDT-BOOK" : "PMNT-ICDT-BOOK",
  });
}

/**
 * The drafts of recent days, by account and day. A day's drafts depend only
 * on the account and the day, and every block of a ledger (transactions.ts)
 * starts up to two paydays early to fix its opening balance, so consecutive
 * blocks generate the same days again: kept here, a paging read generates
 * each day once.
 */
const days = keptValues<DayDrafts>(2_000);

function sweptLedger(account: SandboxAccount, fromDay: number, toDay: number): Ledger {
  const profile = profileOf(account);
  const daysOf =
    account.kind === "merchant"
      ? merchantDay
      : account.kind === "business"
        ? businessDay
        : account.bank.pendingCardPayments
          ? pendingCardDay
          : personalDay;
  // Start at the payday before the one that opens the window: its sweep fixes the balance.
  const start = paydayOnOrBefore(paydayOnOrBefore(fromDay) - 1);
  const entries: LedgerEntry[] = [];
  let balance = profile.targetMinor;
  for (let day = start; day <= toDay; day += 1) {
    const { beforeSweep, afterSweep } = days(`${account.seed}|${account.kind}|${day}`, () =>
      daysOf(account, profile, day),
    );
    if (day === start) {
      // Only the sweep's result is known on the first day; it is never shown.
      balance = profile.targetMinor + afterSweep.reduce((sum, d) => sum + d.amountMinor, 0);
      continue;
    }
    const drafts = [...beforeSweep];
    if (isPayday(day)) {
      const before = balance + beforeSweep.reduce((sum, d) => sum + d.amountMinor, 0);
      if (before !== profile.targetMinor) {
        drafts.push(sweepDraft(account, profile.targetMinor - before));
      }
    }
    drafts.push(...afterSweep);
    drafts.forEach((each, sequence) => {
      balance += each.amountMinor;
      if (day >= fromDay) entries.push({ day, sequence, draft: each, balanceAfterMinor: balance });
    });
  }
  return { entries, closingMinor: balance };
}

function savingsLedger(account: SandboxAccount, fromDay: number, toDay: number): Ledger {
  const profile = savingsProfileOf(account);
  const entries: LedgerEntry[] = [];
  let balance = savingsBalanceAtEndOf(profile, fromDay - 1);
  for (let day = fromDay; day <= toDay; day += 1) {
    savingsDay(account, profile, day).forEach((each, sequence) => {
      balance += each.amountMinor;
      entries.push({ day, sequence, draft: each, balanceAfterMinor: balance });
    });
  }
  return { entries, closingMinor: balance };
}

/** Every booked transaction from `fromDay` to `toDay` (inclusive), oldest first. */
export function ledgerOf(account: SandboxAccount, fromDay: number, toDay: number): Ledger {
  return isSavings(account)
    ? savingsLedger(account, fromDay, toDay)
    : sweptLedger(account, fromDay, toDay);
}

/** Decimal string with two decimals, signed (see /docs/envelopes: money is a string). */
export function formatMinor(minor: number): string {
  const abs = Math.abs(minor);
  const units = Math.floor(abs / 100);
  return `${minor < 0 ? "-" : ""}${units}.${String(abs % 100).padStart(2, "0")}`;
}

/** Card reservations not yet booked: what makes ITAV lower than ITBD. */
function reservedMinor(account: SandboxAccount, today: number): number {
  if (isSavings(account)) return 0;
  const random = seededRandom("reserved", account.seed, today);
  const count = random.int(0, 3);
  let total = 0;
  for (let i = 0; i < count; i += 1) total += toLocalMinor(account, random.int(500, 6000));
  return total;
}

/**
 * ITBD (booked, equal to the newest transaction's balanceAfter) and ITAV
 * (available: booked less `heldMinor`, what pending card payments hold).
 */
export function balancesOf(
  account: SandboxAccount,
  today: number,
  heldMinor: number = reservedMinor(account, today),
): UpstreamBalance[] {
  const booked = ledgerOf(account, today, today).closingMinor;
  const base = {
    currency: account.currency,
    referenceDate: toIsoDay(today),
    name: account.accountName,
  };
  return [
    { balanceType: "ITBD", amount: formatMinor(booked), ...base },
    { balanceType: "ITAV", amount: formatMinor(booked - heldMinor), ...base },
  ];
}
