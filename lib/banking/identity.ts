import { keyedHash, type KeyedHashPurpose } from "../crypto/keyed-hash";
import { getEnv } from "../env";
import type { UpstreamTransaction } from "../upstream/types";

/**
 * Which stored row a transaction the bank reports is (docs/ingest.md#one-transaction-one-row).
 *
 * - The bank's `entry_reference`, when it gives one, is the identity: it
 *   lasts across reads and consents.
 * - Otherwise the identity is a fingerprint of what the entry says (its
 *   date, amount, currency, direction, counterparty and remittance text)
 *   with its occurrence within the read: the second of two identical coffees
 *   on one day is `#2`. A read always covers whole days, so every read of a
 *   day numbers its twins the same way. The bank's `transaction_id` may
 *   change between reads and is never used.
 *
 * Pending and booked entries have identities of their own purposes, so that
 * a pending entry and its booked version are two identities; the booked one
 * takes the pending one's row (docs/ingest.md#pending-transactions).
 *
 * Everything is a keyed hash (lib/crypto/keyed-hash.ts): the server stores
 * no bank data in plaintext.
 */

const SEPARATOR = "\u001f";

/** `12.50` → `12.5`, `007` → `7`: one amount, one text. */
export function canonicalAmount(amount: string): string {
  const [whole = "", fraction = ""] = amount.trim().replace(/^[+-]/, "").split(".");
  const integer = whole.replace(/^0+(?=\d)/, "") || "0";
  const decimals = fraction.replace(/0+$/, "");
  return decimals ? `${integer}.${decimals}` : integer;
}

/** The other party: the creditor of a debit, the debtor of a credit. */
function counterpartyOf(transaction: UpstreamTransaction) {
  const debit = transaction.creditDebitIndicator === "DBIT";
  return {
    name: (debit ? transaction.creditorName : transaction.debtorName) ?? "",
    account:
      (debit
        ? (transaction.creditorIban ?? transaction.creditorBban)
        : (transaction.debtorIban ?? transaction.debtorBban)) ?? "",
  };
}

/** The day an entry is of: its booking date, else (pending) the day it was made. */
export const dayOf = (transaction: UpstreamTransaction): string | null =>
  transaction.bookingDate ?? transaction.transactionDate ?? transaction.valueDate;

function fingerprintOf(transaction: UpstreamTransaction): string {
  const party = counterpartyOf(transaction);
  return [
    dayOf(transaction) ?? "",
    canonicalAmount(transaction.amount),
    transaction.currency,
    transaction.creditDebitIndicator,
    party.name.trim().toLowerCase(),
    party.account.replace(/\s+/g, "").toUpperCase(),
    (transaction.remittanceInformation ?? "").trim(),
  ].join(SEPARATOR);
}

/**
 * What a pending entry and its booked version still share when the bank
 * changed the rest (a new id, a tip, a conversion, a longer text): the
 * currency, the direction and the start of the counterparty's name (or, with
 * none, of the remittance text), letters and digits only.
 */
function matchValueOf(transaction: UpstreamTransaction): string {
  const party = counterpartyOf(transaction).name || (transaction.remittanceInformation ?? "");
  const start = party
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, "")
    .slice(0, 6);
  return [transaction.currency, transaction.creditDebitIndicator, start].join(SEPARATOR);
}

export interface TransactionIdentity {
  /** The row's unique key within its account (`dedupeHash`). */
  dedupeHash: string;
  /**
   * Keys a row stored earlier may carry for this same transaction, each
   * rewritten to `dedupeHash` before the insert: the previous secret's
   * while SECRET_KEY is rotated (docs/operations.md, "Rotating SECRET_KEY"),
   * and the key of an account stored before identities were fingerprints
   * (its `identityVersion` is 1).
   */
  previousHashes: string[];
  /** Plaintext, in memory only: what a pending row is matched on (`matchHash`). */
  matchValue: string;
  /** Plaintext, in memory only: the canonical amount (`amountHash`). */
  amountValue: string;
}

/** A pending row's stored matching keys (booked rows store none). */
export function matchingHashes(identity: TransactionIdentity) {
  return {
    matchHash: keyedHash("transaction-match", identity.matchValue),
    amountHash: keyedHash("transaction-amount", identity.amountValue),
  };
}

/** The identities of one read's transactions, in the order the bank gave them. */
export class TransactionIdentities {
  private readonly occurrences = new Map<string, number>();
  private readonly references = new Set<string>();

  constructor(private readonly options: { legacy?: boolean } = {}) {}

  /**
   * Null for an entry this read already gave (the same `entry_reference`
   * twice): it is one transaction, stored once.
   */
  of(transaction: UpstreamTransaction): TransactionIdentity | null {
    const pending = transaction.status === "PDNG";
    let purpose: KeyedHashPurpose;
    let value: string;
    if (transaction.entryReference !== null) {
      purpose = pending ? "transaction-pending" : "transaction-dedupe";
      value = transaction.entryReference;
      const seen = `${purpose}${SEPARATOR}${value}`;
      if (this.references.has(seen)) return null;
      this.references.add(seen);
    } else {
      purpose = pending ? "transaction-pending" : "transaction-fingerprint";
      const fingerprint = `${pending ? "P" : "B"}${SEPARATOR}${fingerprintOf(transaction)}`;
      const occurrence = (this.occurrences.get(fingerprint) ?? 0) + 1;
      this.occurrences.set(fingerprint, occurrence);
      value = `${fingerprint}#${occurrence}`;
    }
    return {
      dedupeHash: keyedHash(purpose, value),
      previousHashes: this.previousHashes(transaction, purpose, value),
      matchValue: matchValueOf(transaction),
      amountValue: canonicalAmount(transaction.amount),
    };
  }

  private previousHashes(
    transaction: UpstreamTransaction,
    purpose: KeyedHashPurpose,
    value: string,
  ): string[] {
    const { secretKey, previousSecretKey } = getEnv();
    const secrets = previousSecretKey ? [secretKey, previousSecretKey] : [secretKey];
    const hashes = previousSecretKey ? [keyedHash(purpose, value, previousSecretKey)] : [];
    // Before identities were fingerprints, every entry was keyed by its reference, else its id.
    const legacy = transaction.entryReference ?? transaction.transactionId;
    const unchanged = purpose === "transaction-dedupe" && legacy === value;
    if (this.options.legacy && legacy !== null && !unchanged) {
      for (const secret of secrets) hashes.push(keyedHash("transaction-dedupe", legacy, secret));
    }
    return hashes;
  }
}
