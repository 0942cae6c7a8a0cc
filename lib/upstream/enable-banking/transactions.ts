import { setImmediate } from "node:timers/promises";
import type { z } from "zod";
import type { CreditDebitIndicator, TransactionStatus, UpstreamTransaction } from "../types";
import { findIdentification, orNull, toIsoDay, toSignedDecimal } from "./mapping";
import {
  parseWire,
  transactionSchema,
  type TransactionResource,
  type accountIdentificationSchema,
} from "./wire";

/**
 * Enable Banking transactions → `UpstreamTransaction` (docs/architecture.md#upstream-aggregators). Each
 * keeps its own JSON as `rawJson` (/docs/envelopes).
 */

/**
 * ISO 20022 statuses → ours. Held and scheduled entries are not booked yet;
 * cancelled and rejected ones never happened and are left out (null). Any
 * other status (`OTHR`, none) follows the booking date.
 */
export const TRANSACTION_STATUSES = {
  BOOK: "BOOK",
  PDNG: "PDNG",
  HOLD: "PDNG",
  SCHD: "PDNG",
  CNCL: null,
  RJCT: null,
} as const satisfies Record<string, TransactionStatus | null>;

type AccountIdentification = z.infer<typeof accountIdentificationSchema>;

function toStatus(resource: TransactionResource): TransactionStatus | null {
  const status = resource.status?.toUpperCase() ?? "";
  if (Object.hasOwn(TRANSACTION_STATUSES, status)) {
    return TRANSACTION_STATUSES[status as keyof typeof TRANSACTION_STATUSES];
  }
  return toIsoDay(resource.booking_date) ? "BOOK" : "PDNG";
}

/** The bank's indicator; a bank that sends none signs the amount instead. */
function toIndicator(resource: TransactionResource): CreditDebitIndicator {
  const indicator = resource.credit_debit_indicator?.toUpperCase();
  if (indicator === "CRDT" || indicator === "DBIT") return indicator;
  return resource.transaction_amount.amount.startsWith("-") ? "DBIT" : "CRDT";
}

/**
 * A code, not words: letters, digits and `_ . : / + -`, no spaces, at most
 * three ISO 20022 Max35Text parts long.
 */
const CODE = /^[\p{L}\p{N}_.:/+-]{1,105}$/u;

const asCode = (text: string | null | undefined): string | null => {
  const trimmed = text?.trim() ?? "";
  return CODE.test(trimmed) ? trimmed : null;
};

/**
 * ISO 20022 `DOMAIN-FAMILY-SUBFAMILY` from the parts the bank gives (Enable
 * Banking: `code` is the family, `sub_code` the sub-family), or a code the
 * bank sends as a plain string.
 *
 * The result is the transaction's one `bankTransactionCode`, a column the data
 * API serves in plaintext, so it holds codes only: the reference's
 * `description` (the bank's own words, e.g. "Card purchase"), and any part
 * that reads as text rather than a code, are free text of the bank's and stay
 * sealed, in the transaction's `rawJson`, which holds the bank's whole
 * `bank_transaction_code` as sent. No payload key is added for it: the sealed
 * payload keeps the keys the SDKs decode (/docs/envelopes, /docs/data).
 */
export function toBankTransactionCode(value: TransactionResource["bank_transaction_code"]) {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return asCode(value);
  const parts = [value.domain, value.code, value.sub_code].map(asCode);
  const present = parts.filter((part): part is string => part !== null);
  return present.length > 0 ? present.join("-") : null;
}

function toRemittance(value: TransactionResource["remittance_information"]): string | null {
  const lines = (typeof value === "string" ? [value] : (value ?? [])).filter(
    (line) => line.trim() !== "",
  );
  return lines.length > 0 ? lines.join("\n") : null;
}

function toParty(account: AccountIdentification | null | undefined) {
  const other = account?.other;
  return {
    iban: orNull(account?.iban) ?? findIdentification([other], "IBAN"),
    bban: findIdentification([other], "BBAN"),
  };
}

/** Null for a transaction that is to be left out (cancelled, rejected). */
export function toUpstreamTransaction(
  resource: TransactionResource,
  raw: unknown,
): UpstreamTransaction | null {
  const status = toStatus(resource);
  if (status === null) return null;
  const creditor = toParty(resource.creditor_account);
  const debtor = toParty(resource.debtor_account);
  const balanceAfter = resource.balance_after_transaction;
  return {
    // The reference's `transaction_id` may change between reads: kept, but never an identity.
    entryReference: orNull(resource.entry_reference),
    transactionId: orNull(resource.transaction_id),
    // Unsigned: the sign is the indicator (/docs/envelopes).
    amount: resource.transaction_amount.amount.replace(/^[+-]/, ""),
    currency: resource.transaction_amount.currency.toUpperCase(),
    creditDebitIndicator: toIndicator(resource),
    status,
    bookingDate: toIsoDay(resource.booking_date),
    valueDate: toIsoDay(resource.value_date),
    transactionDate: toIsoDay(resource.transaction_date),
    bankTransactionCode: toBankTransactionCode(resource.bank_transaction_code),
    creditorName: orNull(resource.creditor?.name),
    creditorIban: creditor.iban,
    creditorBban: creditor.bban,
    creditorAgentBic: orNull(resource.creditor_agent?.bic_fi),
    debtorName: orNull(resource.debtor?.name),
    debtorIban: debtor.iban,
    debtorBban: debtor.bban,
    debtorAgentBic: orNull(resource.debtor_agent?.bic_fi),
    remittanceInformation: toRemittance(resource.remittance_information),
    note: orNull(resource.note),
    referenceNumber: orNull(resource.reference_number),
    merchantCategoryCode: orNull(resource.merchant_category_code),
    balanceAfter: balanceAfter ? toSignedDecimal(balanceAfter.amount) : null,
    balanceAfterCurrency: balanceAfter ? balanceAfter.currency.toUpperCase() : null,
    exchangeRate: orNull(resource.exchange_rate?.exchange_rate),
    rawJson: JSON.stringify(raw),
  };
}

/** A page of transactions; cancelled and rejected entries are left out. */
export function toUpstreamTransactions(raw: unknown[], route: string): UpstreamTransaction[] {
  const transactions: UpstreamTransaction[] = [];
  for (const item of raw) {
    const transaction = toUpstreamTransaction(parseWire(transactionSchema, item, route), item);
    if (transaction !== null) transactions.push(transaction);
  }
  return transactions;
}

/** Transactions validated and mapped between two yields to the event loop. */
const MAPPING_SLICE = 200;

/** toUpstreamTransactions for a whole page, letting other requests run between slices. */
export async function toUpstreamTransactionsInSlices(
  raw: unknown[],
  route: string,
): Promise<UpstreamTransaction[]> {
  const transactions: UpstreamTransaction[] = [];
  for (let start = 0; start < raw.length; start += MAPPING_SLICE) {
    transactions.push(...toUpstreamTransactions(raw.slice(start, start + MAPPING_SLICE), route));
    if (start + MAPPING_SLICE < raw.length) await setImmediate();
  }
  return transactions;
}
