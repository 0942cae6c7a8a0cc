import { sealJson } from "../crypto/envelope";
import { keyedHash } from "../crypto/keyed-hash";
import { db } from "../db/client";
import type {
  Upstream,
  UpstreamBalance,
  UpstreamReadOptions,
  UpstreamSession,
  UpstreamTransaction,
} from "../upstream/types";
import { accountColumns, balanceColumns, transactionColumns } from "./sealing";

/**
 * A new bank consent (DESIGN.md §6.4): fetch every account's balances and
 * history from the upstream, seal it to the tenant's key, and store the
 * connection, its accounts, balances and transactions in one database
 * transaction, so that a failure leaves nothing half-written.
 */

/** How far back the first fetch after a consent reaches. */
export const INITIAL_HISTORY_DAYS = 180;
/** A guard against an upstream that never ends its paging. */
const MAX_PAGES = 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export async function fetchTransactions(
  upstream: Upstream,
  accountUid: string,
  dateFrom: string,
  options: UpstreamReadOptions = {},
): Promise<UpstreamTransaction[]> {
  const transactions: UpstreamTransaction[] = [];
  let continuationKey: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await upstream.getTransactions(
      accountUid,
      { dateFrom, continuationKey },
      options,
    );
    transactions.push(...result.transactions);
    if (!result.continuationKey) return transactions;
    continuationKey = result.continuationKey;
  }
  throw new Error(`the upstream gave more than ${MAX_PAGES} pages of transactions`);
}

interface FetchedAccount {
  balances: UpstreamBalance[];
  transactions: UpstreamTransaction[];
}

export async function storeBankSession(input: {
  tenantId: string;
  sealingKey: string;
  upstream: Upstream;
  session: UpstreamSession;
  now?: Date;
}): Promise<{ connectionId: string; accountIds: string[]; transactions: number }> {
  const { tenantId, sealingKey, upstream, session } = input;
  const now = input.now ?? new Date();
  const dateFrom = new Date(now.getTime() - INITIAL_HISTORY_DAYS * DAY_MS)
    .toISOString()
    .slice(0, 10);

  const fetched: FetchedAccount[] = [];
  for (const account of session.accounts) {
    const [balances, transactions] = await Promise.all([
      upstream.getBalances(account.uid),
      fetchTransactions(upstream, account.uid, dateFrom),
    ]);
    fetched.push({ balances, transactions });
  }

  return db().$transaction(
    async (tx) => {
      const connection = await tx.connection.create({
        data: {
          tenantId,
          upstream: upstream.name,
          aspspName: session.aspsp.name,
          aspspCountry: session.aspsp.country,
          psuType: session.psuType,
          validUntil: session.validUntil,
          lastSyncedAt: now,
          upstreamSessionEnc: sealJson(sealingKey, { sessionId: session.sessionId }),
          upstreamSessionHash: keyedHash("upstream-session", session.sessionId),
        },
      });
      const accountIds: string[] = [];
      let stored = 0;
      for (const [index, account] of session.accounts.entries()) {
        const { balances, transactions } = fetched[index] ?? { balances: [], transactions: [] };
        const row = await tx.account.create({
          data: { connectionId: connection.id, tenantId, ...accountColumns(sealingKey, account) },
        });
        accountIds.push(row.id);
        await tx.balance.createMany({
          data: balances.map((balance) => ({
            accountId: row.id,
            ...balanceColumns(sealingKey, balance),
          })),
          skipDuplicates: true,
        });
        const created = await tx.transaction.createMany({
          data: transactions.map((transaction) => ({
            accountId: row.id,
            ...transactionColumns(sealingKey, transaction),
          })),
          skipDuplicates: true,
        });
        stored += created.count;
      }
      return { connectionId: connection.id, accountIds, transactions: stored };
    },
    { timeout: 60_000 },
  );
}
