import { performance } from "node:perf_hooks";
import { sealJson } from "../crypto/envelope";
import { timingSafeEqualString } from "../crypto/constant-time";
import { keyedHash } from "../crypto/keyed-hash";
import type { Prisma } from "../db/client";
import type { Upstream, UpstreamSession } from "../upstream/types";
import { log } from "../log";
import { observeIngestDuration } from "../metrics";
import { toStoredPsuHeaders } from "../upstream/psu-headers";
import { startSyncDeadline, type SyncDeadline } from "./budget";
import { HistoryReading, storeRead, type FetchedTransactions } from "./fetch-and-store";
import {
  clearHistoryPending,
  connectionHistoryPending,
  deleteBalancesFrom,
  lockConnection,
  setHistoryDays,
  upsertBalance,
} from "./queries/accounts";
import { accountColumns, balanceColumns, identityHashCandidates } from "./sealing";
import { firstHistoryWindows, historyDaysAfter } from "./windows";
import { statementsOf, writeWithinDeadline, type RunStatement } from "./write-transaction";
import { recordConnectionEvent } from "../webhooks/producers";

/**
 * A new bank consent, stored in two steps (docs/ingest.md):
 *
 * 1. `storeConnection`: the connection, its accounts and their balances, in
 *    one database transaction. The accounts are marked `historyPending`.
 * 2. `storeHistory`: each account's history, fetched, sealed and written in
 *    one transaction per account (written while later pages are fetched),
 *    which also clears the mark. Each next account's pages are read while
 *    the previous account's last chunks are written (`startHistoryReading`). An account
 *    whose history could not be stored keeps the mark: its transactions are
 *    not served, and its next sync fetches the whole first window again.
 *
 * So the flow can move on as soon as the accounts are stored, and nothing
 * half-written is ever served. Both steps run on the sync pool, within the
 * sync budget (lib/banking/budget.ts), each under its own deadline.
 */

/** A balance as stored: its plaintext columns and the sealed rest. */
type SealedBalance = ReturnType<typeof balanceColumns>;

/**
 * Sealed balances, replacing the account's whole (docs/ingest.md#balances):
 * after it the account holds exactly the balances of this read, in its order.
 * Written in place and then cut to length rather than deleted and inserted
 * anew, so that two syncs of one account at once cannot leave a mix of both
 * reads: the first row each writes is the same row, which orders them.
 */
export async function writeBalances(
  run: RunStatement,
  accountId: string,
  balances: SealedBalance[],
) {
  for (const [position, columns] of balances.entries()) {
    await upsertBalance(run, accountId, position, columns, new Date());
  }
  // The balances past the last one the bank reported: it reports them no more.
  await deleteBalancesFrom(run, accountId, balances.length);
}

/**
 * The account's first history is stored whole (docs/ingest.md): clears its
 * `historyPending` mark, if it is still set, and answers the
 * connection's id when that completed the connection's first history (no
 * account of it is pending any more), for `connection.history_ready`
 * (docs/events.md#types). The connection row is locked before the count, so
 * of two transactions storing its last two histories at once, the second to
 * commit sees the first's and answers the id: exactly one of them does.
 */
export async function completeFirstHistory(
  run: RunStatement,
  accountId: string,
): Promise<string | null> {
  const connectionId = await clearHistoryPending(run, accountId, new Date());
  if (!connectionId) return null;
  await lockConnection(run, connectionId);
  return (await connectionHistoryPending(run, connectionId)) ? null : connectionId;
}

/** The depth the bank allowed, once it refused a longer first history (docs/ingest.md). */
async function keepHistoryDepth(
  run: RunStatement,
  accountId: string,
  fetched: FetchedTransactions,
  now: Date,
) {
  const historyDays = historyDaysAfter(firstHistoryWindows(now), fetched.window, now, null);
  if (historyDays === null) return;
  await setHistoryDays(run, accountId, historyDays);
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
  /**
   * The PSU headers the bank requires (`Aspsp.requiredPsuHeaders` when the consent was
   * started), recorded on the connection for the syncs (/docs/sync); unset leaves them as they are.
   */
  requiredPsuHeaders?: readonly string[] | null;
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
    ...(input.requiredPsuHeaders !== undefined && {
      requiredPsuHeaders: toStoredPsuHeaders(input.requiredPsuHeaders),
    }),
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
      // A new consent: its own reminder before it ends (docs/events.md#reminders), and its
      // own connection.expiring and connection.expired (docs/events.md#types).
      data: {
        ...sessionColumns(input, now),
        status: "Active",
        expiryReminderSentAt: null,
        expiringEventAt: null,
        expiredEventAt: null,
      },
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
 * Starts reading the first history of a new consent's accounts, in the order
 * given: the first account's pages at once, each next one's once the
 * previous one's are all in. Not while step 1 runs: the person waits for
 * step 1 (the consent screen shows its accounts), and on a busy machine
 * reading beside it made that wait longer without making the history faster.
 */
export function startHistoryReading(input: {
  sealingKey: string;
  upstream: Upstream;
  accountUids: readonly string[];
  now?: Date;
  deadline?: SyncDeadline;
}): HistoryReading {
  const now = input.now ?? new Date();
  return new HistoryReading({ ...input, windows: firstHistoryWindows(now) });
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
  const reading = startHistoryReading({
    ...input,
    accountUids: input.accounts.map((account) => account.uid),
  });
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const stored = await storeEachHistory(
      input.accounts,
      reading,
      input.now ?? new Date(),
      progress,
    );
    observeIngestDuration(stored.failedAccountIds.length > 0 ? "partial" : "ok", seconds());
    return stored;
  } catch (error) {
    observeIngestDuration("error", seconds());
    throw error;
  } finally {
    // Whatever ended the loop, no account's pages are fetched any more.
    reading.stop();
  }
}

async function storeEachHistory(
  accounts: ConnectedAccount[],
  reading: HistoryReading,
  now: Date,
  progress: IngestProgress,
): Promise<StoredHistory> {
  const { deadline } = reading;
  let stored = 0;
  const failedAccountIds: string[] = [];
  for (const [index, account] of accounts.entries()) {
    let ready: string | null = null;
    try {
      const { created } = await storeRead({
        read: reading.read(index, account.uid),
        accountId: account.id,
        deadline,
        complete: async (run, fetched) => {
          ready = await completeFirstHistory(run, account.id);
          await keepHistoryDepth(run, account.id, fetched, now);
        },
      });
      stored += created;
      if (ready) await recordConnectionEvent(ready, "connection.history_ready");
    } catch (error) {
      // The account keeps its mark: its next sync fetches the whole window again.
      log.warn("ingest.history_failed", { error });
      failedAccountIds.push(account.id);
      if (deadline.expired) {
        failedAccountIds.push(...accounts.slice(index + 1).map((rest) => rest.id));
        break;
      }
    }
    await progress.history?.(index + 1, accounts.length);
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
