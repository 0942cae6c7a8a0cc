import type { UpstreamTransaction } from "../types";
import type { SandboxAccount } from "./accounts";
import {
  authorizedMinor,
  DEPOSIT_PENDING_DAYS,
  depositOf,
  isCardPayment,
  LONGEST_BOOKING_DELAY_DAYS,
} from "./card-day";
import { ledgerOf, type LedgerEntry } from "./ledger";
import { toRawJson, toUpstreamTransaction, type TransactionWindow } from "./transactions";

/**
 * What the scenario bank with pending card payments (banks.ts
 * `pendingCardPayments`, card-day.ts) reports as pending on a day: every
 * card payment made by then that books later, for the amount authorized,
 * and the hotel deposits not yet released. As many banks do, a pending
 * entry has no `entry_reference`, no booking or value date and no balance
 * after it; its `transaction_date` is the day it was made. Once booked, it
 * is reported as any booked entry, with its reference: another identity.
 */

interface Pending {
  /** The day it was made. */
  made: number;
  /** Orders the entries of one day. */
  sequence: number;
  payment: LedgerEntry["draft"];
  minor: number;
}

/** Pending on `today`, newest first. */
function pendingOn(account: SandboxAccount, today: number): Pending[] {
  const later = ledgerOf(account, today + 1, today + LONGEST_BOOKING_DELAY_DAYS).entries;
  const payments = later.flatMap((entry): Pending[] => {
    const made = entry.draft.transactionDay;
    if (!isCardPayment(entry.draft) || made === null || made > today) return [];
    const minor = authorizedMinor(account, entry.draft, entry);
    return [{ made, sequence: entry.day * 1000 + entry.sequence, payment: entry.draft, minor }];
  });
  const deposits = Array.from({ length: DEPOSIT_PENDING_DAYS }, (_, back): Pending => {
    const payment = depositOf(account, today - back);
    return { made: today - back, sequence: -1, payment, minor: Math.abs(payment.amountMinor) };
  });
  return [...payments, ...deposits].sort((a, b) => b.made - a.made || b.sequence - a.sequence);
}

function toPendingTransaction(account: SandboxAccount, pending: Pending): UpstreamTransaction {
  const entry = {
    day: pending.made,
    sequence: 0,
    draft: { ...pending.payment, amountMinor: -pending.minor },
    balanceAfterMinor: 0,
  };
  const { rawJson: _booked, ...booked } = toUpstreamTransaction(account, entry);
  const transaction = {
    ...booked,
    entryReference: null,
    status: "PDNG" as const,
    bookingDate: null,
    valueDate: null,
    balanceAfter: null,
    balanceAfterCurrency: null,
  };
  return { ...transaction, rawJson: toRawJson(transaction) };
}

/**
 * The pending entries a read of `window` reports on `today`: those made
 * within it, when it reaches today (a read that ends earlier is of the past).
 */
export function pendingTransactions(
  account: SandboxAccount,
  window: TransactionWindow,
  today: number,
): UpstreamTransaction[] {
  if (window.to < today) return [];
  return pendingOn(account, today)
    .filter((pending) => pending.made >= window.from)
    .map((pending) => toPendingTransaction(account, pending));
}

/** What the pending entries hold of the balance on `today` (ITAV is ITBD less this). */
export function heldByPending(account: SandboxAccount, today: number): number {
  return pendingOn(account, today).reduce((sum, pending) => sum + pending.minor, 0);
}
