import { sealJson } from "../crypto/envelope";
import { keyedHash } from "../crypto/keyed-hash";
import { syncDb, type Prisma } from "../db/client";
import {
  UpstreamError,
  type Upstream,
  type UpstreamBalance,
  type UpstreamReadOptions,
  type UpstreamSession,
  type UpstreamTransaction,
} from "../upstream/types";
import {
  inCpuSlices,
  startSyncDeadline,
  SyncDeadlineError,
  yieldToEventLoop,
  type SyncDeadline,
} from "./budget";
import { accountColumns, balanceColumns, transactionColumns } from "./sealing";

/**
 * A new bank consent: fetch every account's balances and history from the
 * upstream, seal it to the tenant's key, and store the connection, its
 * accounts, balances and transactions in one database transaction, so that
 * a failure (or the deadline) leaves nothing half-written. Runs on the sync
 * pool and within the sync budget (lib/banking/budget.ts).
 */

/** How far back the first fetch after a consent reaches. */
export const INITIAL_HISTORY_DAYS = 180;
/** A guard against an upstream that never ends its paging. */
const MAX_PAGES = 1000;
/**
 * The most transaction data one account's fetch may hold in memory, counted
 * as the upstream's own JSON of each transaction, across all pages (about
 * 45 000 transactions; two years of a busy shop are about 7 MB).
 */
export const MAX_FETCHED_BYTES = 32 * 1024 * 1024;
/** Rows per INSERT (building one is CPU work too). */
const WRITE_SLICE = 500;
const DAY_MS = 24 * 60 * 60 * 1000;

export async function fetchTransactions(
  upstream: Upstream,
  accountUid: string,
  dateFrom: string,
  options: UpstreamReadOptions = {},
  deadline: SyncDeadline = startSyncDeadline(),
): Promise<UpstreamTransaction[]> {
  const transactions: UpstreamTransaction[] = [];
  let bytes = 0;
  let continuationKey: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    deadline.check();
    const result = await upstream.getTransactions(
      accountUid,
      { dateFrom, continuationKey },
      { ...options, signal: deadline.signal },
    );
    for (const transaction of result.transactions) bytes += transaction.rawJson.length;
    if (bytes > MAX_FETCHED_BYTES) {
      throw new UpstreamError(
        "bank_error",
        `the upstream's transactions exceed ${MAX_FETCHED_BYTES} bytes for one account`,
      );
    }
    transactions.push(...result.transactions);
    if (!result.continuationKey) return transactions;
    continuationKey = result.continuationKey;
    // An in-process upstream (the sandbox) answers without I/O: let other requests in.
    await yieldToEventLoop();
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
  /** Default: `SYNC_DEADLINE_SECONDS` from the start. */
  deadline?: SyncDeadline;
}

export interface StoredSession {
  connectionId: string;
  accountIds: string[];
  transactions: number;
}

/** Balances and history of every account of the session, fetched and sealed before anything is written. */
async function fetchSession(
  upstream: Upstream,
  session: UpstreamSession,
  sealingKey: string,
  now: Date,
  deadline: SyncDeadline,
): Promise<SealedAccountData[]> {
  const dateFrom = new Date(now.getTime() - INITIAL_HISTORY_DAYS * DAY_MS)
    .toISOString()
    .slice(0, 10);
  const sealed: SealedAccountData[] = [];
  for (const account of session.accounts) {
    const [balances, transactions] = await Promise.all([
      upstream.getBalances(account.uid, { signal: deadline.signal }),
      fetchTransactions(upstream, account.uid, dateFrom, {}, deadline),
    ]);
    sealed.push(await sealAccountData(sealingKey, { balances, transactions }, deadline));
  }
  return sealed;
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

export interface SealedAccountData {
  balances: ReturnType<typeof balanceColumns>[];
  transactions: ReturnType<typeof transactionColumns>[];
}

/**
 * Seals what was fetched, before any connection is taken: sealing is CPU
 * work (a key agreement per row), done in short slices with the event loop
 * free in between, one sync at a time, and checked against the deadline.
 */
export async function sealAccountData(
  sealingKey: string,
  fetched: FetchedAccount,
  deadline: SyncDeadline,
): Promise<SealedAccountData> {
  const balances = fetched.balances.map((balance) => balanceColumns(sealingKey, balance));
  const transactions = await inCpuSlices(
    fetched.transactions,
    (transaction) => transactionColumns(sealingKey, transaction),
    deadline,
  );
  return { balances, transactions };
}

/**
 * Options of a sync's write transaction: it may wait for a connection of the
 * sync pool as long as any request, and stay open until the deadline.
 */
export function syncTransactionOptions(deadline: SyncDeadline) {
  deadline.check();
  return { timeout: deadline.remainingMs() + 1000 };
}

/** No statement of the transaction may run past the deadline (SET LOCAL statement_timeout). */
async function boundByDeadline(tx: Prisma.TransactionClient, deadline: SyncDeadline) {
  deadline.check();
  const milliseconds = String(Math.max(1, deadline.remainingMs()));
  await tx.$queryRaw`SELECT set_config('statement_timeout', ${milliseconds}, true)`;
}

/**
 * Runs a sync's write transaction on the sync pool. Past the deadline it is
 * rolled back and SyncDeadlineError is thrown, whatever failed first.
 */
export async function writeWithinDeadline<T>(
  deadline: SyncDeadline,
  write: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  try {
    return await syncDb().$transaction(async (tx) => {
      await boundByDeadline(tx, deadline);
      return write(tx);
    }, syncTransactionOptions(deadline));
  } catch (error) {
    if (deadline.expired && !(error instanceof SyncDeadlineError)) {
      throw new SyncDeadlineError({ cause: error });
    }
    throw error;
  }
}

/** Sealed balances (replacing the account's) and new transactions; returns how many were new. */
export async function writeAccountData(
  tx: Prisma.TransactionClient,
  accountId: string,
  sealed: SealedAccountData,
  deadline: SyncDeadline,
): Promise<number> {
  for (const columns of sealed.balances) {
    await tx.balance.upsert({
      where: { accountId_balanceType: { accountId, balanceType: columns.balanceType } },
      create: { accountId, ...columns },
      update: columns,
    });
  }
  let created = 0;
  for (let start = 0; start < sealed.transactions.length; start += WRITE_SLICE) {
    await boundByDeadline(tx, deadline);
    const slice = sealed.transactions.slice(start, start + WRITE_SLICE);
    const result = await tx.transaction.createMany({
      data: slice.map((columns) => ({ accountId, ...columns })),
      skipDuplicates: true,
    });
    created += result.count;
  }
  return created;
}

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
  const deadline = input.deadline ?? startSyncDeadline();
  const sealed = await fetchSession(input.upstream, session, sealingKey, now, deadline);
  return writeWithinDeadline(deadline, async (tx) => {
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
      stored += await writeAccountData(tx, row.id, sealed[index] ?? EMPTY, deadline);
    }
    return { connectionId: connection.id, accountIds, transactions: stored };
  });
}

const EMPTY: SealedAccountData = { balances: [], transactions: [] };

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
  const deadline = input.deadline ?? startSyncDeadline();
  const sealed = await fetchSession(input.upstream, session, sealingKey, now, deadline);
  return writeWithinDeadline(deadline, async (tx) => {
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
      stored += await writeAccountData(tx, row.id, sealed[index] ?? EMPTY, deadline);
    }
    await tx.account.updateMany({
      where: { connectionId, id: { notIn: accountIds } },
      data: { needsReconnect: true },
    });
    return { connectionId, accountIds, transactions: stored };
  });
}
