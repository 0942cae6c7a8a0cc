import { sealJson } from "../crypto/envelope";
import { keyedHash } from "../crypto/keyed-hash";
import { db, type Prisma } from "../db/client";
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

export interface FetchedAccount {
  balances: UpstreamBalance[];
  transactions: UpstreamTransaction[];
}

interface StoreInput {
  tenantId: string;
  sealingKey: string;
  upstream: Upstream;
  session: UpstreamSession;
  now?: Date;
}

export interface StoredSession {
  connectionId: string;
  accountIds: string[];
  transactions: number;
}

/** Balances and history of every account of the session, fetched before anything is written. */
async function fetchSession(upstream: Upstream, session: UpstreamSession, now: Date) {
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
  return fetched;
}

function sessionColumns(input: StoreInput, now: Date) {
  const { session, sealingKey } = input;
  return {
    upstream: input.upstream.name,
    aspspName: session.aspsp.name,
    aspspCountry: session.aspsp.country,
    psuType: session.psuType,
    validUntil: session.validUntil,
    lastSyncedAt: now,
    upstreamSessionEnc: sealJson(sealingKey, { sessionId: session.sessionId }),
    upstreamSessionHash: keyedHash("upstream-session", session.sessionId),
  };
}

/** Sealed balances (replacing the account's) and new transactions; returns how many were new. */
export async function writeAccountData(
  tx: Prisma.TransactionClient,
  accountId: string,
  sealingKey: string,
  fetched: FetchedAccount,
): Promise<number> {
  for (const balance of fetched.balances) {
    const columns = balanceColumns(sealingKey, balance);
    await tx.balance.upsert({
      where: { accountId_balanceType: { accountId, balanceType: columns.balanceType } },
      create: { accountId, ...columns },
      update: columns,
    });
  }
  const created = await tx.transaction.createMany({
    data: fetched.transactions.map((transaction) => ({
      accountId,
      ...transactionColumns(sealingKey, transaction),
    })),
    skipDuplicates: true,
  });
  return created.count;
}

/**
 * Writing a large history (tens of thousands of sealed rows) takes longer
 * than Prisma's five-second default for an interactive transaction.
 */
export const TRANSACTION_OPTIONS = { timeout: 60_000 };

/**
 * Locks the tenant row and checks it is still sealed to `sealingKey`: a user
 * who started over with a new key in the meantime (lib/banking/start-over.ts)
 * must not get data sealed to the key they lost.
 */
async function assertStillSealedTo(
  tx: Prisma.TransactionClient,
  tenantId: string,
  sealingKey: string,
): Promise<void> {
  const locked = await tx.tenant.updateMany({
    where: { id: tenantId, sealingKey },
    data: { sealingKey },
  });
  if (locked.count !== 1) throw new Error("the tenant's sealing key changed");
}

export async function storeBankSession(input: StoreInput): Promise<StoredSession> {
  const { tenantId, sealingKey, session } = input;
  const now = input.now ?? new Date();
  const fetched = await fetchSession(input.upstream, session, now);
  return db().$transaction(async (tx) => {
    await assertStillSealedTo(tx, tenantId, sealingKey);
    const connection = await tx.connection.create({
      data: { tenantId, ...sessionColumns(input, now) },
    });
    const accountIds: string[] = [];
    let stored = 0;
    for (const [index, account] of session.accounts.entries()) {
      const row = await tx.account.create({
        data: { connectionId: connection.id, tenantId, ...accountColumns(sealingKey, account) },
      });
      accountIds.push(row.id);
      stored += await writeAccountData(tx, row.id, sealingKey, fetched[index] ?? EMPTY);
    }
    return { connectionId: connection.id, accountIds, transactions: stored };
  }, TRANSACTION_OPTIONS);
}

const EMPTY: FetchedAccount = { balances: [], transactions: [] };

/**
 * A renewed consent (CONTRACT §2 `renew_connection`) replaces the connection's
 * upstream session in place: the same connection and account ids, each
 * account found again by its number's keyed hash and re-sealed with its new
 * uid, so that the old uids answer `uid_outdated`. Accounts the bank no
 * longer shares need a reconnect; new ones are added.
 */
export async function renewBankSession(
  input: StoreInput & { connectionId: string },
): Promise<StoredSession> {
  const { tenantId, sealingKey, session, connectionId } = input;
  const now = input.now ?? new Date();
  const fetched = await fetchSession(input.upstream, session, now);
  return db().$transaction(async (tx) => {
    await assertStillSealedTo(tx, tenantId, sealingKey);
    await tx.connection.update({
      where: { id: connectionId, tenantId },
      data: { ...sessionColumns(input, now), status: "Active" },
    });
    const existing = await tx.account.findMany({ where: { connectionId } });
    const accountIds: string[] = [];
    let stored = 0;
    for (const [index, account] of session.accounts.entries()) {
      const columns = accountColumns(sealingKey, account);
      const match = existing.find(
        (row) => row.identityHash !== null && row.identityHash === columns.identityHash,
      );
      const row = match
        ? await tx.account.update({
            where: { id: match.id },
            data: { ...columns, needsReconnect: false, consentWithdrawn: false },
          })
        : await tx.account.create({ data: { connectionId, tenantId, ...columns } });
      accountIds.push(row.id);
      stored += await writeAccountData(tx, row.id, sealingKey, fetched[index] ?? EMPTY);
    }
    await tx.account.updateMany({
      where: { connectionId, id: { notIn: accountIds } },
      data: { needsReconnect: true },
    });
    return { connectionId, accountIds, transactions: stored };
  }, TRANSACTION_OPTIONS);
}
