import { performance } from "node:perf_hooks";
import { matchesKeyedHash } from "../crypto/keyed-hash";
import { syncDb } from "../db/client";
import { isUuid } from "../db/uuid";
import { log } from "../log";
import { observeSyncDuration } from "../metrics";
import { forBank } from "../upstream/metrics";
import { upstreamNamed } from "../upstream";
import {
  UPSTREAM_NAMES,
  UpstreamError,
  UPSTREAM_FAILURE_STATUS,
  type UpstreamName,
} from "../upstream/types";
import { balanceColumns } from "./sealing";
import { startSyncDeadline, SyncDeadlineError, type SyncDeadline } from "./budget";
import { fetchTransactions, storeWhileFetching } from "./fetch-and-store";
import { completeFirstHistory, writeBalances } from "./ingest";
import { recordConnectionEvent, recordConnectionExpired } from "../webhooks/producers";
import { settlePending } from "./pending";
import { markAccountSynced, markConnectionSynced } from "./queries/accounts";
import { oldestPendingDay } from "./queries/transactions";
import { firstHistoryWindows, historyDaysAfter, syncWindows } from "./windows";
import { answerPsuHeaderRefusal, missingBeforeRead } from "./psu-headers";

/**
 * Online sync of one account (/docs/sync): the client posts the
 * account's uid (decrypted on its side); the server checks it against the
 * keyed hash, fetches what is new from the upstream, seals it to the tenant's
 * key and stores it. Each transaction is stored once, under a unique keyed
 * identity (lib/banking/identity.ts), so neither a re-read nor concurrent
 * syncs of one account store one twice; pending entries the bank no longer
 * reports are replaced by their booked version or removed (lib/banking/pending.ts).
 *
 * A sync runs on the sync pool under one deadline (lib/banking/budget.ts):
 * past it, the sync throws SyncDeadlineError and has written nothing.
 */

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
      /** With psu_headers_missing and psu_present_required: the `X-Psu-*` headers to send. */
      missingPsuHeaders?: string[];
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
  details: {
    bankErrorCode?: string | null;
    retryAfterSeconds?: number | null;
    missingPsuHeaders?: string[];
  } = {},
): SyncOutcome => ({
  ok: false,
  reason,
  bankErrorCode: details.bankErrorCode ?? null,
  retryAfterSeconds: details.retryAfterSeconds ?? null,
  ...(details.missingPsuHeaders && { missingPsuHeaders: details.missingPsuHeaders }),
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
 * The partners reading the connection hear `connection.withdrawn` or `connection.expired`.
 */
async function markLapsed(connectionId: string, reason: "reconnect_needed" | "consent_withdrawn") {
  const status = reason === "consent_withdrawn" ? "Withdrawn" : "Expired";
  const [changed] = await syncDb().$transaction([
    syncDb().connection.updateMany({
      where: { id: connectionId, status: { not: status } },
      data: { status },
    }),
    syncDb().account.updateMany({
      where: { connectionId },
      data:
        reason === "consent_withdrawn"
          ? { consentWithdrawn: true, needsReconnect: false }
          : { needsReconnect: true },
    }),
  ]);
  // Partners hear it (docs/events.md#types): a withdrawal when the status turns
  // Withdrawn, an expiry once per consent.
  if (status === "Withdrawn" && changed.count === 1) {
    await recordConnectionEvent(connectionId, "connection.withdrawn");
  }
  if (status === "Expired") await recordConnectionExpired(connectionId);
}

/** The identities this version stores (lib/banking/identity.ts); older accounts hold 1. */
const IDENTITY_VERSION = 2;

/**
 * Null when the tenant has no such account. Each sync's time is observed by
 * outcome (docs/observability.md): ok, the failure's reason, or the error.
 */
export async function syncAccount(request: SyncRequest): Promise<SyncOutcome | null> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  let outcome: SyncOutcome | null;
  try {
    outcome = await readAndStore(request);
  } catch (error) {
    observeSyncDuration(
      error instanceof SyncDeadlineError ? "deadline_exceeded" : "error",
      seconds(),
    );
    throw error;
  }
  if (outcome) observeSyncDuration(outcome.ok ? "ok" : outcome.reason, seconds());
  return outcome;
}

async function readAndStore(request: SyncRequest): Promise<SyncOutcome | null> {
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

  const upstream = forBank(
    upstreamNamed(toUpstreamName(connection.upstream)),
    connection.aspspName,
  );
  // The holder is present, but not every header the bank requires came: the bank is not asked.
  const missingPsuHeaders = missingBeforeRead(connection, request.psuHeaders);
  if (missingPsuHeaders) return failure("psu_headers_missing", { missingPsuHeaders });
  // An account whose first history was never stored (docs/ingest.md) reads it now.
  const windows = account.historyPending
    ? firstHistoryWindows(now, account.historyDays)
    : syncWindows({
        now,
        lastSyncedAt: connection.lastSyncedAt,
        oldestPendingDay: await oldestPendingDay(account.id),
        historyDays: account.historyDays,
        reidentify: account.identityVersion < IDENTITY_VERSION,
      });
  const options = { psuHeaders: request.psuHeaders };
  // Sealing starts with the first page, in the sealing pool, while the next ones are fetched;
  // each chunk is inserted as soon as it is sealed, in the one transaction that stores the sync.
  let totalFetched = 0;
  let created: number;
  /** The connection whose first history this sync completed (connection.history_ready). */
  let historyReady: string | null = null;
  try {
    ({ created } = await storeWhileFetching({
      sealingKey,
      accountId: account.id,
      deadline,
      legacyIdentities: account.identityVersion < IDENTITY_VERSION,
      fetch: async (onPage) =>
        Promise.all([
          upstream.getBalances(request.uid, { ...options, signal: deadline.signal }),
          fetchTransactions(upstream, request.uid, windows, options, deadline, (page) => {
            totalFetched += page.length;
            return onPage(page);
          }),
        ]),
      complete: async (run, [balances, fetched], written) => {
        const columns = balances.map((balance) => balanceColumns(sealingKey, balance));
        await writeBalances(run, account.id, columns);
        if (account.historyPending) historyReady = await completeFirstHistory(run, account.id);
        const replaced = await settlePending(run, account.id, written);
        const historyDays = historyDaysAfter(windows, fetched.window, now, account.historyDays);
        await markAccountSynced(run, account.id, historyDays, IDENTITY_VERSION, new Date());
        await markConnectionSynced(run, connection.id, now, new Date());
        return written.inserted.length - replaced;
      },
    }));
  } catch (error) {
    // A read the deadline aborted looks like an unreachable bank; it is not the bank's fault
    // (storeWhileFetching has made it SyncDeadlineError). Nothing was stored.
    if (!(error instanceof UpstreamError)) throw error;
    log.warn("sync.upstream_failed", { reason: error.reason, bank_error: error.bankErrorCode });
    if (error.reason === "psu_headers_missing") {
      const answer = await answerPsuHeaderRefusal(
        upstream,
        connection,
        request.psuHeaders,
        deadline.signal,
      );
      return failure(answer.reason, { ...answer, bankErrorCode: error.bankErrorCode });
    }
    const outcome = failure(error.reason, error);
    if (error.reason === "reconnect_needed" || error.reason === "consent_withdrawn") {
      await markLapsed(connection.id, error.reason);
      request.lapsedConnections?.set(connection.id, outcome);
    }
    return outcome;
  }
  if (historyReady) await recordConnectionEvent(historyReady, "connection.history_ready");
  return { ok: true, newTransactions: created, totalFetched };
}
