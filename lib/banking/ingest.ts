import { sealJson } from "../crypto/envelope";
import { timingSafeEqualString } from "../crypto/constant-time";
import { keyedHash } from "../crypto/keyed-hash";
import type { Prisma } from "../db/client";
import {
  UpstreamError,
  type Upstream,
  type UpstreamReadOptions,
  type UpstreamSession,
  type UpstreamTransaction,
} from "../upstream/types";
import { log } from "../log";
import { startSyncDeadline, yieldToEventLoop, type SyncDeadline } from "./budget";
import { accountColumns, balanceColumns, identityHashCandidates } from "./sealing";
import { insertTransactions, TransactionSealer } from "./write";
import {
  statementsOf,
  writeStatementsWithinDeadline,
  writeWithinDeadline,
  type RunStatement,
} from "./write-transaction";

/**
 * A new bank consent, stored in two steps (docs/ingest.md):
 *
 * 1. `storeConnection`: the connection, its accounts and their balances, in
 *    one database transaction. The accounts are marked `historyPending`.
 * 2. `storeHistory`: each account's history, fetched, sealed and written in
 *    one transaction per account (written while later pages are fetched),
 *    which also clears the mark. An account
 *    whose history could not be stored keeps the mark: its transactions are
 *    not served, and its next sync fetches the whole first window again.
 *
 * So the flow can move on as soon as the accounts are stored, and nothing
 * half-written is ever served. Both steps run on the sync pool, within the
 * sync budget (lib/banking/budget.ts), each under its own deadline.
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
const DAY_MS = 24 * 60 * 60 * 1000;

export async function fetchTransactions(
  upstream: Upstream,
  accountUid: string,
  dateFrom: string,
  options: UpstreamReadOptions = {},
  deadline: SyncDeadline = startSyncDeadline(),
  /** Each page as it arrives (to start sealing it); the whole list is returned too. */
  onPage?: (transactions: readonly UpstreamTransaction[]) => Promise<void>,
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
    await onPage?.(result.transactions);
    if (!result.continuationKey) return transactions;
    continuationKey = result.continuationKey;
    // An in-process upstream (the sandbox) answers without I/O: let other requests in.
    await yieldToEventLoop();
  }
  throw new Error(`the upstream gave more than ${MAX_PAGES} pages of transactions`);
}

/** A balance as stored: its plaintext columns and the sealed rest. */
type SealedBalance = ReturnType<typeof balanceColumns>;

/**
 * Fetches an account's pages and stores their transactions in one write
 * transaction, opened at once: each chunk is inserted as soon as the sealing
 * pool has sealed it, while later pages are still fetched, so PostgreSQL
 * works beside the sealing rather than after it (docs/ingest.md). `fetch`
 * reads the pages, handing each to `onPage`; `complete` finishes the
 * transaction once every chunk is in. A failure anywhere (the bank, the
 * deadline, the database) rolls it all back: nothing of the account is
 * stored unless all of it is.
 */
export async function storeWhileFetching<T>(input: {
  sealingKey: string;
  accountId: string;
  deadline: SyncDeadline;
  fetch: (onPage: (page: readonly UpstreamTransaction[]) => Promise<void>) => Promise<T>;
  complete: (run: RunStatement, fetched: T) => Promise<void>;
}): Promise<{ fetched: T; created: number }> {
  const { deadline } = input;
  const sealer = new TransactionSealer(input.sealingKey, deadline);
  return writeStatementsWithinDeadline(deadline, async (run) => {
    const writing = insertTransactions(run, input.accountId, sealer.chunks(), deadline);
    // Awaited below; a failure while the pages still arrive must not go unhandled meanwhile.
    writing.catch(() => undefined);
    let fetched: T;
    try {
      fetched = await input.fetch((page) => sealer.add(page));
    } catch (error) {
      // The transaction is rolled back once the statement under way has ended.
      sealer.finish();
      await writing.catch(() => undefined);
      throw error;
    }
    sealer.finish();
    const created = await writing;
    await input.complete(run, fetched);
    return { fetched, created };
  });
}

const UPSERT_BALANCE = `
INSERT INTO "Balance" ("id", "accountId", "balanceType", "currency", "referenceDate", "enc",
  "updatedAt")
VALUES (gen_random_uuid(), $1::uuid, $2, $3, $4, $5, $6::timestamp)
ON CONFLICT ("accountId", "balanceType") DO UPDATE SET "currency" = EXCLUDED."currency",
  "referenceDate" = EXCLUDED."referenceDate", "enc" = EXCLUDED."enc",
  "updatedAt" = EXCLUDED."updatedAt"`;

/** Sealed balances, replacing the account's. */
export async function writeBalances(
  run: RunStatement,
  accountId: string,
  balances: SealedBalance[],
  now = new Date(),
) {
  for (const columns of balances) {
    await run(UPSERT_BALANCE, [
      accountId,
      columns.balanceType,
      columns.currency,
      columns.referenceDate,
      columns.enc,
      now,
    ]);
  }
}

/** The account's first history is stored whole (docs/ingest.md). */
export async function clearHistoryPending(run: RunStatement, accountId: string, now = new Date()) {
  await run(
    `UPDATE "Account" SET "historyPending" = false, "updatedAt" = $2::timestamp WHERE "id" = $1::uuid`,
    [accountId, now],
  );
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

interface StoreInput {
  tenantId: string;
  sealingKey: string;
  upstream: Upstream;
  session: UpstreamSession;
  now?: Date;
  /** Default: `SYNC_DEADLINE_SECONDS` from the start. */
  deadline?: SyncDeadline;
}

/** Progress of the two steps, for the flow's progress screen. */
export interface IngestProgress {
  /** `done` of `total` accounts have their balances fetched. */
  accounts?(done: number, total: number): Promise<void> | void;
  /** `done` of `total` accounts have their history stored. */
  history?(done: number, total: number): Promise<void> | void;
}

export interface ConnectedAccount {
  id: string;
  uid: string;
}

export interface StoredConnection {
  connectionId: string;
  accounts: ConnectedAccount[];
}

export interface StoredSession {
  connectionId: string;
  accountIds: string[];
  transactions: number;
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

/** Every account's balances, sealed before anything is written. */
async function fetchBalances(
  input: StoreInput,
  deadline: SyncDeadline,
  progress: IngestProgress,
): Promise<SealedBalance[][]> {
  const { session, sealingKey, upstream } = input;
  const sealed: SealedBalance[][] = [];
  for (const account of session.accounts) {
    const balances = await upstream.getBalances(account.uid, { signal: deadline.signal });
    sealed.push(balances.map((balance) => balanceColumns(sealingKey, balance)));
    await progress.accounts?.(sealed.length, session.accounts.length);
  }
  return sealed;
}

/** Step 1 of a new consent: the connection, its accounts (history pending) and balances. */
export async function storeConnection(
  input: StoreInput,
  progress: IngestProgress = {},
): Promise<StoredConnection> {
  const { tenantId, sealingKey, session } = input;
  const now = input.now ?? new Date();
  const deadline = input.deadline ?? startSyncDeadline();
  const balances = await fetchBalances(input, deadline, progress);
  return writeWithinDeadline(deadline, async (tx) => {
    await assertStillSealedTo(tx, tenantId, sealingKey);
    const connection = await tx.connection.create({
      data: { tenantId, ...sessionColumns(input, now) },
    });
    const accounts: ConnectedAccount[] = [];
    for (const [index, account] of session.accounts.entries()) {
      const row = await tx.account.create({
        data: {
          connectionId: connection.id,
          tenantId,
          historyPending: true,
          ...accountColumns(sealingKey, account),
        },
      });
      await writeBalances(statementsOf(tx), row.id, balances[index] ?? []);
      accounts.push({ id: row.id, uid: account.uid });
    }
    return { connectionId: connection.id, accounts };
  });
}

/**
 * Step 1 of a renewed consent (`renew_connection`): the connection's upstream
 * session is replaced in place, with the same connection and account ids;
 * each account is found again by its number's keyed hash and re-sealed with
 * its new uid, so that the old uids answer `uid_outdated`. Accounts the bank
 * no longer shares need a reconnect; new ones are added, history pending.
 */
export async function renewConnection(
  input: StoreInput & { connectionId: string },
  progress: IngestProgress = {},
): Promise<StoredConnection> {
  const { tenantId, sealingKey, session, connectionId } = input;
  const now = input.now ?? new Date();
  const deadline = input.deadline ?? startSyncDeadline();
  const balances = await fetchBalances(input, deadline, progress);
  return writeWithinDeadline(deadline, async (tx) => {
    await assertStillSealedTo(tx, tenantId, sealingKey);
    await tx.connection.update({
      where: { id: connectionId, tenantId },
      data: { ...sessionColumns(input, now), status: "Active" },
    });
    const existing = await tx.account.findMany({ where: { connectionId } });
    const accounts: ConnectedAccount[] = [];
    for (const [index, account] of session.accounts.entries()) {
      const columns = accountColumns(sealingKey, account);
      // Under the current secret or, during a rotation, the previous one; the
      // update below stores the current secret's hash.
      const candidates = identityHashCandidates(account);
      const match = existing.find((row) => {
        let matched = false;
        for (const candidate of candidates) {
          if (row.identityHash === null) continue;
          matched = timingSafeEqualString(row.identityHash, candidate) || matched;
        }
        return matched;
      });
      const row = match
        ? await tx.account.update({
            where: { id: match.id },
            data: { ...columns, needsReconnect: false, consentWithdrawn: false },
          })
        : await tx.account.create({
            data: { connectionId, tenantId, historyPending: true, ...columns },
          });
      await writeBalances(statementsOf(tx), row.id, balances[index] ?? []);
      accounts.push({ id: row.id, uid: account.uid });
    }
    await tx.account.updateMany({
      where: { connectionId, id: { notIn: accounts.map((account) => account.id) } },
      data: { needsReconnect: true },
    });
    return { connectionId, accounts };
  });
}

export interface StoredHistory {
  transactions: number;
  /** Accounts whose history could not be stored: they stay `historyPending`. */
  failedAccountIds: string[];
}

/**
 * Step 2: each account's first window of history, in one transaction per
 * account that also clears its `historyPending`. A failure leaves that
 * account's history as it was (the mark included) and goes on with the next;
 * past the deadline the remaining accounts are left pending too.
 */
export async function storeHistory(
  input: {
    sealingKey: string;
    upstream: Upstream;
    accounts: ConnectedAccount[];
    now?: Date;
    deadline?: SyncDeadline;
  },
  progress: IngestProgress = {},
): Promise<StoredHistory> {
  const now = input.now ?? new Date();
  const deadline = input.deadline ?? startSyncDeadline();
  const dateFrom = new Date(now.getTime() - INITIAL_HISTORY_DAYS * DAY_MS)
    .toISOString()
    .slice(0, 10);
  let stored = 0;
  const failedAccountIds: string[] = [];
  for (const [index, account] of input.accounts.entries()) {
    try {
      const { created } = await storeWhileFetching({
        sealingKey: input.sealingKey,
        accountId: account.id,
        deadline,
        fetch: (onPage) =>
          fetchTransactions(input.upstream, account.uid, dateFrom, {}, deadline, onPage),
        complete: (run) => clearHistoryPending(run, account.id),
      });
      stored += created;
    } catch (error) {
      // The account keeps its mark: its next sync fetches the whole window again.
      log.warn("ingest.history_failed", { error });
      failedAccountIds.push(account.id);
      if (deadline.expired) {
        failedAccountIds.push(...input.accounts.slice(index + 1).map((rest) => rest.id));
        break;
      }
    }
    await progress.history?.(index + 1, input.accounts.length);
  }
  return { transactions: stored, failedAccountIds };
}

/** Both steps at once: a new consent with its whole first history (scripts and tests). */
export async function storeBankSession(input: StoreInput): Promise<StoredSession> {
  const connection = await storeConnection(input);
  const history = await storeHistory({ ...input, accounts: connection.accounts });
  if (history.failedAccountIds.length > 0) {
    throw new Error(`the history of ${history.failedAccountIds.length} account(s) was not stored`);
  }
  return {
    connectionId: connection.connectionId,
    accountIds: connection.accounts.map((account) => account.id),
    transactions: history.transactions,
  };
}
