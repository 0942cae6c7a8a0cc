import type { z } from "zod";
import type { Account, Balance, Connection, Transaction } from "../db/generated/client";
import type { AccountWire, BalanceWire, ConnectionWire, TransactionWire } from "./schemas";

/**
 * The data API's JSON shapes (/docs/data): plaintext metadata as it
 * is stored, everything sensitive as the envelopes sealed at ingest. No
 * plaintext bank data is ever part of a response.
 */

/** The columns a balance's wire form is made of. */
export type BalanceRow = Pick<Balance, "balanceType" | "currency" | "referenceDate" | "enc">;

export function toBalanceWire(balance: BalanceRow): z.infer<typeof BalanceWire> {
  return {
    type: balance.balanceType,
    currency: balance.currency,
    referenceDate: balance.referenceDate,
    enc: balance.enc,
  };
}

/** The columns an account's wire form is made of, its bank's name and country joined in. */
export type AccountRow = Pick<
  Account,
  "id" | "currency" | "accountType" | "bic" | "needsReconnect" | "enc" | "displayNameEnc" | "uidEnc"
> &
  Pick<Connection, "aspspName" | "aspspCountry"> & { balances: BalanceRow[] };

export function toAccountWire(account: AccountRow): z.infer<typeof AccountWire> {
  return {
    id: account.id,
    aspspName: account.aspspName,
    aspspCountry: account.aspspCountry,
    currency: account.currency,
    accountType: account.accountType,
    bic: account.bic,
    needsReconnect: account.needsReconnect,
    balances: account.balances.map(toBalanceWire),
    enc: account.enc,
    displayNameEnc: account.displayNameEnc,
    uidEnc: account.uidEnc,
  };
}

/** The columns a transaction's wire form is made of. */
export type TransactionRow = Pick<
  Transaction,
  | "id"
  | "currency"
  | "creditDebitIndicator"
  | "status"
  | "bookingDate"
  | "valueDate"
  | "transactionDate"
  | "bankTransactionCode"
  | "enc"
>;

export function toTransactionWire(transaction: TransactionRow): z.infer<typeof TransactionWire> {
  return {
    id: transaction.id,
    currency: transaction.currency,
    creditDebitIndicator: transaction.creditDebitIndicator,
    status: transaction.status,
    bookingDate: transaction.bookingDate,
    valueDate: transaction.valueDate,
    transactionDate: transaction.transactionDate,
    bankTransactionCode: transaction.bankTransactionCode,
    enc: transaction.enc,
  };
}

/** `isLive` is the consent's state by the service's clock (/docs/data). */
export function toConnectionWire(
  connection: Connection & { accounts: Pick<Account, "id">[] },
  now: Date,
): z.infer<typeof ConnectionWire> {
  return {
    sessionId: connection.id,
    aspspName: connection.aspspName,
    aspspCountry: connection.aspspCountry,
    validUntil: connection.validUntil.toISOString(),
    status: connection.status,
    accountCount: connection.accounts.length,
    lastSyncedAt: connection.lastSyncedAt?.toISOString() ?? null,
    psuType: connection.psuType,
    isLive: connection.status === "Active" && connection.validUntil > now,
    accountIds: connection.accounts.map((account) => account.id),
  };
}
