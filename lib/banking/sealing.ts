import { sealJson, toPlaintext } from "../crypto/envelope";
import { keyedHash, keyedHashCandidates } from "../crypto/keyed-hash";
import { matchingHashes, type TransactionIdentity } from "./identity";
import type { UpstreamAccount, UpstreamBalance, UpstreamTransaction } from "../upstream/types";

/**
 * What is stored of bank data: the plaintext columns the
 * data API serves as they are, and everything sensitive sealed to the
 * tenant's key. Identifiers the server must recognize later are kept as
 * keyed hashes (docs/architecture.md#domain-model).
 */

const identityOf = (account: UpstreamAccount): string | null => {
  const number = account.iban ?? account.bban;
  return number ? `${account.currency}|${number}` : null;
};

/** The account's number as a keyed hash: how a renewal recognizes it under a new uid. */
function identityHashOf(account: UpstreamAccount): string | null {
  const identity = identityOf(account);
  return identity ? keyedHash("account-identity", identity) : null;
}

/**
 * Every identity hash a stored account of this number may carry: the current
 * secret's and, while a rotation is under way, the previous secret's
 * (docs/operations.md, "Rotating SECRET_KEY").
 */
export function identityHashCandidates(account: UpstreamAccount): string[] {
  const identity = identityOf(account);
  return identity ? keyedHashCandidates("account-identity", identity) : [];
}

export function accountColumns(sealingKey: string, account: UpstreamAccount) {
  return {
    currency: account.currency,
    accountType: account.accountType,
    bic: account.bic,
    enc: sealJson(sealingKey, {
      ownerName: account.ownerName,
      iban: account.iban,
      bban: account.bban,
      accountName: account.accountName,
      product: account.product,
    }),
    displayNameEnc: sealJson(sealingKey, { displayName: account.displayName }),
    uidEnc: sealJson(sealingKey, { uid: account.uid }),
    uidHash: keyedHash("uid", account.uid),
    identityHash: identityHashOf(account),
  };
}

export function balanceColumns(sealingKey: string, balance: UpstreamBalance) {
  return {
    balanceType: balance.balanceType,
    currency: balance.currency,
    referenceDate: balance.referenceDate,
    enc: sealJson(sealingKey, { amount: balance.amount, name: balance.name }),
  };
}

/**
 * A transaction's plaintext columns and the compact JSON text to seal into
 * its `enc` (sealing is done in bulk, by the sealing pool).
 */
export function transactionRow(transaction: UpstreamTransaction, identity: TransactionIdentity) {
  const pending = transaction.status === "PDNG";
  return {
    columns: {
      currency: transaction.currency,
      creditDebitIndicator: transaction.creditDebitIndicator,
      status: transaction.status,
      bookingDate: transaction.bookingDate,
      valueDate: transaction.valueDate,
      transactionDate: transaction.transactionDate,
      bankTransactionCode: transaction.bankTransactionCode,
      dedupeHash: identity.dedupeHash,
      previousHashes: identity.previousHashes,
      // Stored for a pending row only; a booked one needs them in memory, while it is matched.
      ...(pending ? matchingHashes(identity) : { matchHash: null, amountHash: null }),
      matchValue: identity.matchValue,
      amountValue: identity.amountValue,
    },
    plaintext: toPlaintext({
      amount: transaction.amount,
      creditorName: transaction.creditorName,
      creditorIban: transaction.creditorIban,
      creditorBban: transaction.creditorBban,
      creditorAgentBic: transaction.creditorAgentBic,
      debtorName: transaction.debtorName,
      debtorIban: transaction.debtorIban,
      debtorBban: transaction.debtorBban,
      debtorAgentBic: transaction.debtorAgentBic,
      remittanceInformation: transaction.remittanceInformation,
      note: transaction.note,
      referenceNumber: transaction.referenceNumber,
      exchangeRate: transaction.exchangeRate,
      merchantCategoryCode: transaction.merchantCategoryCode,
      balanceAfter: transaction.balanceAfter,
      balanceAfterCurrency: transaction.balanceAfterCurrency,
      rawJson: transaction.rawJson,
    }),
  };
}

export type TransactionRow = ReturnType<typeof transactionRow>;
