import { createHash } from "node:crypto";
import type { UpstreamTransaction } from "../types";
import type { SandboxAccount } from "./accounts";
import { toIsoDay } from "./calendar";
import { keptValues } from "./kept";
import { formatMinor, ledgerOf, type LedgerEntry } from "./ledger";

/**
 * The sandbox's statement, **newest first** (as the data API serves it,
 * /docs/data): by booking date descending, and within a day the latest
 * entry first. Pages are cut by a cursor (a day and how many of its entries
 * were already given), so each page only generates the days it shows.
 */

export const PAGE_SIZE = 50;
/** How far back the sandbox bank serves history (many banks give 13–24 months). */
export const MAX_HISTORY_DAYS = 730;

export interface TransactionWindow {
  /** Inclusive day numbers. */
  from: number;
  to: number;
}

export interface Cursor {
  day: number;
  /** Entries of `day` (newest first) already given on earlier pages. */
  skip: number;
}

/** Stable per account, day and position: the identity de-duplication keys on. */
function entryReference(account: SandboxAccount, entry: LedgerEntry): string {
  const digest = createHash("sha256")
    .update(`${account.seed}|${entry.day}|${entry.sequence}`)
    .digest("hex")
    .slice(0, 10)
    .toUpperCase();
  const date = toIsoDay(entry.day).replaceAll("-", "");
  return `SBX${date}${String(entry.sequence).padStart(3, "0")}${digest}`;
}

/** Enable Banking's transaction JSON, as the real connector will receive it. */
export function toRawJson(transaction: Omit<UpstreamTransaction, "rawJson">): string {
  const party = (name: string | null, iban: string | null, bic: string | null) => ({
    party: name === null ? null : { name },
    account: iban === null ? null : { iban },
    agent: bic === null ? null : { bic_fi: bic },
  });
  const creditor = party(
    transaction.creditorName,
    transaction.creditorIban,
    transaction.creditorAgentBic,
  );
  const debtor = party(transaction.debtorName, transaction.debtorIban, transaction.debtorAgentBic);
  const [domain, family, subFamily] = (transaction.bankTransactionCode ?? "").split("-");
  return JSON.stringify({
    entry_reference: transaction.entryReference,
    transaction_amount: { currency: transaction.currency, amount: transaction.amount },
    credit_debit_indicator: transaction.creditDebitIndicator,
    status: transaction.status,
    booking_date: transaction.bookingDate,
    value_date: transaction.valueDate,
    transaction_date: transaction.transactionDate,
    creditor: creditor.party,
    creditor_account: creditor.account,
    creditor_agent: creditor.agent,
    debtor: debtor.party,
    debtor_account: debtor.account,
    debtor_agent: debtor.agent,
    bank_transaction_code: domain
      ? { description: domain, code: family, sub_code: subFamily }
      : null,
    remittance_information: transaction.remittanceInformation
      ? [transaction.remittanceInformation]
      : [],
    reference_number: transaction.referenceNumber,
    merchant_category_code: transaction.merchantCategoryCode,
    balance_after_transaction: transaction.balanceAfter
      ? { currency: transaction.balanceAfterCurrency, amount: transaction.balanceAfter }
      : null,
    exchange_rate: transaction.exchangeRate ? { exchange_rate: transaction.exchangeRate } : null,
  });
}

export function toUpstreamTransaction(
  account: SandboxAccount,
  entry: LedgerEntry,
): UpstreamTransaction {
  const { draft } = entry;
  const credit = draft.amountMinor >= 0;
  const counterparty = draft.counterparty;
  const booked = toIsoDay(entry.day);
  const transaction = {
    entryReference: entryReference(account, entry),
    transactionId: null,
    amount: formatMinor(Math.abs(draft.amountMinor)),
    currency: account.currency,
    creditDebitIndicator: credit ? ("CRDT" as const) : ("DBIT" as const),
    status: "BOOK" as const,
    bookingDate: booked,
    valueDate: booked,
    transactionDate: toIsoDay(draft.transactionDay ?? entry.day),
    bankTransactionCode: draft.bankTransactionCode,
    // The counterparty is the debtor of a credit and the creditor of a debit.
    creditorName: credit ? null : (counterparty?.name ?? null),
    creditorIban: credit ? null : (counterparty?.iban ?? null),
    creditorBban: credit ? null : (counterparty?.bban ?? null),
    creditorAgentBic: credit ? null : (counterparty?.bic ?? null),
    debtorName: credit ? (counterparty?.name ?? null) : null,
    debtorIban: credit ? (counterparty?.iban ?? null) : null,
    debtorBban: credit ? (counterparty?.bban ?? null) : null,
    debtorAgentBic: credit ? (counterparty?.bic ?? null) : null,
    remittanceInformation: draft.remittance,
    note: null,
    referenceNumber: draft.referenceNumber,
    merchantCategoryCode: draft.merchantCategoryCode,
    balanceAfter: formatMinor(entry.balanceAfterMinor),
    balanceAfterCurrency: account.currency,
    exchangeRate: draft.exchangeRate,
  };
  return { ...transaction, rawJson: toRawJson(transaction) };
}

/**
 * A block of BLOCK_DAYS aligned days of an account's ledger, oldest first.
 * Consecutive pages read the same blocks again, and a day's entries do not
 * depend on the window they are generated in (ledger.ts), so the blocks a
 * paging read needs are kept, a few at a time: every block is generated
 * once per read instead of once per page.
 */
const BLOCK_DAYS = 31;
const CACHED_BLOCKS = 64;
const blocks = keptValues<readonly LedgerEntry[]>(CACHED_BLOCKS);

const blockOf = (account: SandboxAccount, block: number): readonly LedgerEntry[] =>
  blocks(
    `${account.seed}|${account.kind}|${block}`,
    () => ledgerOf(account, block * BLOCK_DAYS, block * BLOCK_DAYS + BLOCK_DAYS - 1).entries,
  );

/** Entries newest first from `cursor` back to the window's start, at most `size` + 1. */
function collectFrom(
  account: SandboxAccount,
  window: TransactionWindow,
  cursor: Cursor,
  size: number,
): LedgerEntry[] {
  const collected: LedgerEntry[] = [];
  let skipped = 0;
  for (let high = cursor.day; high >= window.from && collected.length <= size;) {
    const block = Math.floor(high / BLOCK_DAYS);
    const low = Math.max(window.from, block * BLOCK_DAYS);
    const entries = blockOf(account, block);
    for (let index = entries.length - 1; index >= 0; index -= 1) {
      const entry = entries[index];
      if (!entry || entry.day > high || entry.day < low) continue;
      if (entry.day === cursor.day && skipped < cursor.skip) skipped += 1;
      else collected.push(entry);
      if (collected.length > size) break;
    }
    high = low - 1;
  }
  return collected;
}

/** One page, newest first, and the cursor of the next one (null on the last page). */
export function pageOfTransactions(
  account: SandboxAccount,
  window: TransactionWindow,
  cursor: Cursor,
  size: number = PAGE_SIZE,
): { entries: LedgerEntry[]; next: Cursor | null } {
  const collected = collectFrom(account, window, cursor, size);
  const entries = collected.slice(0, size);
  const following = collected[size];
  if (!following) return { entries, next: null };
  const givenOfThatDay = entries.filter((entry) => entry.day === following.day).length;
  const skippedBefore = following.day === cursor.day ? cursor.skip : 0;
  return { entries, next: { day: following.day, skip: skippedBefore + givenOfThatDay } };
}
