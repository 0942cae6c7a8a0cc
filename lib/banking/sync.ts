import { matchesKeyedHash } from "../crypto/keyed-hash";
import { syncDb } from "../db/client";
import { isUuid } from "../db/uuid";
import { log } from "../log";
import { upstreamNamed } from "../upstream";
import {
  UPSTREAM_NAMES,
  UpstreamError,
  UPSTREAM_FAILURE_STATUS,
  type UpstreamName,
} from "../upstream/types";
import { balanceColumns } from "./sealing";
import { startSyncDeadline, type SyncDeadline } from "./budget";
import { fetchTransactions, storeWhileFetching } from "./fetch-and-store";
import { INITIAL_HISTORY_DAYS, clearHistoryPending, writeBalances } from "./ingest";

/**
 * Online sync of one account (/docs/sync): the client posts the
 * account's uid (decrypted on its side); the server checks it against the
 * keyed hash, fetches what is new from the upstream, seals it to the tenant's
 * key and stores it. Transactions are de-duplicated by a unique keyed hash,
 * so concurrent syncs of one account never store one twice.
 *
 * A sync runs on the sync pool under one deadline (lib/banking/budget.ts):
 * past it, the sync throws SyncDeadlineError and has written nothing.
 */

/** Every sync re-reads this many days before the last sync, for late bookings. */
export const SYNC_OVERLAP_DAYS = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

export const SYNC_FAILURE_STATUS = {
  ...UPSTREAM_FAILURE_STATUS,
  // A renewal replaced the uid: re-read the accounts and post the new one.
  uid_outdated: 409,
} as const;

export type SyncFailureReason = keyof typeof SYNC_FAILURE_STATUS;

export type SyncOutcome =
  | { ok: true; newTransactions: number; totalFetched: number }
  | {
      ok: false;
      reason: SyncFailureReason;
      bankErrorCode: string | null;
      retryAfterSeconds: number | null;
    };

export interface SyncRequest {
  tenantId: string;
  accountId: string;
  uid: string;
  psuHeaders?: Record<string, string>;
  now?: Date;
  /** Shared by the accounts of a bulk sync; default `SYNC_DEADLINE_SECONDS` from now. */
  deadline?: SyncDeadline;
  /**
   * Shared by the accounts of a bulk sync: the consents that ended during it,
   * by connection id, with the bank's answer. Every other account of such a
   * connection is reported with that same answer, its bank error code
   * included, and the bank is not asked again.
   */
  lapsedConnections?: Map<string, SyncOutcome>;
}

const failure = (
  reason: SyncFailureReason,
  details: { bankErrorCode?: string | null; retryAfterSeconds?: number | null } = {},
): SyncOutcome => ({
  ok: false,
  reason,
  bankErrorCode: details.bankErrorCode ?? null,
  retryAfterSeconds: details.retryAfterSeconds ?? null,
});

function toUpstreamName(name: string): UpstreamName {
  const known = UPSTREAM_NAMES.find((candidate) => candidate === name);
  if (!known) throw new Error(`connection held by an unknown upstream: ${name}`);
  return known;
}

/**
 * The consent is over. An expired one needs a reconnect; a withdrawn one is
 * not flagged for a reconnect, which cannot bring it back: its accounts keep
 * answering consent_withdrawn and a bulk sync leaves them out (docs/sync-failures.md).
 */
async function markLapsed(connectionId: string, reason: "reconnect_needed" | "consent_withdrawn") {
  await syncDb().$transaction([
    syncDb().connection.update({
      where: { id: connectionId },
      data: { status: reason === "consent_withdrawn" ? "Withdrawn" : "Expired" },
    }),
    syncDb().account.updateMany({
      where: { connectionId },
      data:
        reason === "consent_withdrawn"
          ? { consentWithdrawn: true, needsReconnect: false }
          : { needsReconnect: true },
    }),
  ]);
}

/** Null when the tenant has no such account. */
export async function syncAccount(request: SyncRequest): Promise<SyncOutcome | null> {
  const now = request.now ?? new Date();
  const deadline = request.deadline ?? startSyncDeadline();
  if (!isUuid(request.accountId)) return null;
  const account = await syncDb().account.findFirst({
    where: { id: request.accountId, tenantId: request.tenantId },
    include: { connection: true, tenant: { select: { sealingKey: true } } },
  });
  if (!account) return null;
  const { connection } = account;
  const lapsed = request.lapsedConnections?.get(connection.id);
  if (lapsed) return lapsed;
  if (account.consentWithdrawn || connection.status === "Withdrawn") {
    return failure("consent_withdrawn");
  }
  if (account.needsReconnect || connection.status !== "Active" || connection.validUntil <= now) {
    if (!account.needsReconnect) await markLapsed(connection.id, "reconnect_needed");
    return failure("reconnect_needed");
  }
  if (!matchesKeyedHash("uid", request.uid, account.uidHash)) return failure("uid_outdated");
  const sealingKey = account.tenant.sealingKey;
  if (!sealingKey) throw new Error("tenant without a sealing key holds an account");

  const upstream = upstreamNamed(toUpstreamName(connection.upstream));
  // An account whose first history was never stored (docs/ingest.md) fetches that whole window.
  const since = account.historyPending
    ? new Date(account.createdAt.getTime() - INITIAL_HISTORY_DAYS * DAY_MS)
    : (connection.lastSyncedAt ?? new Date(now.getTime() - INITIAL_HISTORY_DAYS * DAY_MS));
  const dateFrom = new Date(since.getTime() - SYNC_OVERLAP_DAYS * DAY_MS)
    .toISOString()
    .slice(0, 10);
  const options = { psuHeaders: request.psuHeaders };
  // Sealing starts with the first page, in the sealing pool, while the next ones are fetched;
  // each chunk is inserted as soon as it is sealed, in the one transaction that stores the sync.
  let totalFetched = 0;
  let created: number;
  try {
    ({ created } = await storeWhileFetching({
      sealingKey,
      accountId: account.id,
      deadline,
      fetch: async (onPage) => {
        const [balances] = await Promise.all([
          upstream.getBalances(request.uid, { ...options, signal: deadline.signal }),
          fetchTransactions(upstream, request.uid, dateFrom, options, deadline, (page) => {
            totalFetched += page.length;
            return onPage(page);
          }),
        ]);
        return balances;
      },
      complete: async (run, balances) => {
        const columns = balances.map((balance) => balanceColumns(sealingKey, balance));
        await writeBalances(run, account.id, columns);
        if (account.historyPending) await clearHistoryPending(run, account.id);
        await run(
          `UPDATE "Connection" SET "lastSyncedAt" = $2::timestamp, "updatedAt" = $3::timestamp
            WHERE "id" = $1::uuid`,
          [connection.id, now, new Date()],
        );
      },
    }));
  } catch (error) {
    // A read the deadline aborted looks like an unreachable bank; it is not the bank's fault
    // (storeWhileFetching has made it SyncDeadlineError). Nothing was stored.
    if (!(error instanceof UpstreamError)) throw error;
    log.warn("sync.upstream_failed", { reason: error.reason, bank_error: error.bankErrorCode });
    const outcome = failure(error.reason, error);
    if (error.reason === "reconnect_needed" || error.reason === "consent_withdrawn") {
      await markLapsed(connection.id, error.reason);
      request.lapsedConnections?.set(connection.id, outcome);
    }
    return outcome;
  }
  return { ok: true, newTransactions: created, totalFetched };
}
