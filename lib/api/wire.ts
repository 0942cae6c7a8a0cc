import type { z } from "zod";
import type { Account, Balance, Connection, Transaction } from "../db/generated/client";
import type { AccountWire, BalanceWire, ConnectionWire, TransactionWire } from "./schemas";

/**
 * The data API's JSON shapes (CONTRACT §7.1–7.3): plaintext metadata as it
 * is stored, everything sensitive as the envelopes sealed at ingest. No
 * plaintext bank data is ever part of a response.
 */

export function toBalanceWire(balance: Balance): z.infer<typeof BalanceWire> {
  return {
    type: balance.balanceType,
    currency: balance.currency,
    referenceDate: balance.referenceDate,
    enc: balance.enc,
  };
}

export function toAccountWire(
  account: Account & {
    balances: Balance[];
    connection: Pick<Connection, "aspspName" | "aspspCountry">;
  },
): z.infer<typeof AccountWire> {
  return {
    id: account.id,
    aspspName: account.connection.aspspName,
    aspspCountry: account.connection.aspspCountry,
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

export function toTransactionWire(transaction: Transaction): z.infer<typeof TransactionWire> {
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

/** CONTRACT §7.3: `isLive` is the consent's state by the service's clock. */
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
