import { setTimeout as sleep } from "node:timers/promises";
import { countBankConnected, countFlowFailure } from "../analytics/counters";
import { inSyncSlot, SyncBusyError } from "../banking/budget";
import { renewConnection, storeConnection, storeHistory } from "../banking/ingest";
import { db } from "../db/client";
import type { BankIngestState } from "../db/generated/enums";
import { log } from "../log";
import { forBank } from "../upstream/metrics";
import { upstream } from "../upstream";
import { recordConnectionRenewed } from "../webhooks/producers";

/**
 * Storing a bank consent after the bank sent the browser back
 * (docs/ingest.md). The callback answers at once with the progress screen;
 * this work runs after the response, in the process that took the callback,
 * and records its progress in `BankIngest`, so that the progress screen's
 * status poll can be answered by any instance:
 *
 *   connecting → (waiting) → accounts → history → done, or failed.
 *
 * The browser moves on at `history`: the accounts and balances are stored,
 * and the data API holds back each account's transactions until its history
 * is complete. A process that dies mid-way stops the heartbeat, and the
 * state reads as failed once it is INGEST_STALE_MS old; the person can then
 * try again.
 */

/** How often a running ingest shows it is alive. */
const HEARTBEAT_MS = 2_000;
/** An unfinished ingest without a heartbeat for this long belonged to a process that died. */
export const INGEST_STALE_MS = 20_000;
/**
 * How long an ingest waits for a sync slot, showing "waiting", before it
 * gives up (each attempt waits up to SYNC_QUEUE_WAIT_MS, see budget.ts).
 */
export const INGEST_SLOT_WAIT_MS = 120_000;
const SLOT_RETRY_MS = 1_000;

export interface IngestJob {
  /** Null for a connection a person's own key started (POST /api/authorizations): no flow to count. */
  flowId: string | null;
  authorizationId: string;
  /** The upstream's authorization code, completed in the background. */
  code: string;
  tenantId: string;
  sealingKey: string;
  renewConnectionId: string | null;
  /** The bank's required PSU headers as recorded when the consent was started; null if not known. */
  requiredPsuHeaders: string[] | null;
  /** The bank's ASPSP name (the upstream metrics' bank label). */
  aspspName: string;
}

/** The running ingests of this process, so tests and shutdown can wait for them. */
const running = ((globalThis as { bankConnectIngests?: Set<Promise<void>> }).bankConnectIngests ??=
  new Set());

/** Records the ingest and starts it; returns at once. */
export async function startIngest(job: IngestJob): Promise<string> {
  const row = await db().bankIngest.create({
    data: { flowId: job.flowId, authorizationId: job.authorizationId },
  });
  const task = runIngest(row.id, job);
  running.add(task);
  void task.finally(() => running.delete(task));
  return row.id;
}

/** Resolves when every ingest this process started has ended. */
export async function settleIngests(): Promise<void> {
  while (running.size > 0) await Promise.allSettled([...running]);
}

type Progress = Partial<{
  state: BankIngestState;
  accountsTotal: number;
  accountsDone: number;
  historyDone: number;
  connectionId: string;
  failure: string;
}>;

async function runIngest(id: string, job: IngestJob): Promise<void> {
  const record = (progress: Progress = {}) =>
    db().bankIngest.update({ where: { id }, data: { ...progress, heartbeatAt: new Date() } });
  const heartbeat = setInterval(() => {
    record().catch((error: unknown) => log.warn("banks.ingest_heartbeat_failed", { error }));
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let connected = false;
  try {
    const bank = forBank(upstream(), job.aspspName);
    const session = await bank.completeAuthorization({ code: job.code });
    await record({ accountsTotal: session.accounts.length });
    await inSlotWaiting(
      async () => {
        await record({ state: "accounts" });
        const store = {
          tenantId: job.tenantId,
          sealingKey: job.sealingKey,
          upstream: bank,
          session,
          requiredPsuHeaders: job.requiredPsuHeaders,
        };
        const progress = {
          accounts: (done: number) => record({ accountsDone: done }).then(() => undefined),
        };
        const connection = job.renewConnectionId
          ? await renewConnection({ ...store, connectionId: job.renewConnectionId }, progress)
          : await storeConnection(store, progress);
        connected = true;
        if (job.renewConnectionId) await recordConnectionRenewed(connection.connectionId);
        if (job.flowId) await countBankConnected(job.flowId);
        await record({ state: "history", connectionId: connection.connectionId });
        await storeHistory(
          { sealingKey: job.sealingKey, upstream: bank, accounts: connection.accounts },
          { history: (done) => record({ historyDone: done }).then(() => undefined) },
        );
      },
      () => void record({ state: "waiting" }).catch(() => undefined),
    );
    await record({ state: "done" });
  } catch (error) {
    log.warn("banks.ingest_failed", { error });
    // Once the accounts are stored the flow has moved on: what is missing is per account.
    const busy = error instanceof SyncBusyError;
    const outcome: Progress = connected
      ? { state: "done" }
      : { state: "failed", failure: busy ? "busy" : "failed" };
    if (!connected && job.flowId) {
      await countFlowFailure(job.flowId, busy ? "bank_busy" : "bank_failed");
    }
    await record(outcome).catch((cause: unknown) =>
      log.warn("banks.ingest_failed", { error: cause }),
    );
  } finally {
    clearInterval(heartbeat);
  }
}

/** A sync slot, waited for as long as INGEST_SLOT_WAIT_MS while every slot is busy. */
async function inSlotWaiting(work: () => Promise<void>, onWait: () => void): Promise<void> {
  const until = Date.now() + INGEST_SLOT_WAIT_MS;
  for (;;) {
    let started = false;
    try {
      return await inSyncSlot(
        () => {
          started = true;
          return work();
        },
        { onWait },
      );
    } catch (error) {
      if (started || !(error instanceof SyncBusyError) || Date.now() >= until) throw error;
      onWait();
      await sleep(SLOT_RETRY_MS);
    }
  }
}

export interface IngestStatus {
  state: BankIngestState;
  accountsTotal: number;
  accountsDone: number;
  historyDone: number;
  failure: string | null;
  /** The accounts and balances are stored: the flow can go on. */
  ready: boolean;
  bank: { name: string; country: string; psuType: string };
}

/** The newest ingest of the flow, as the progress screen shows it; null when there is none. */
export async function findIngestStatus(
  flowId: string,
  now: Date = new Date(),
): Promise<IngestStatus | null> {
  const row = await db().bankIngest.findFirst({
    where: { flowId },
    orderBy: { createdAt: "desc" },
    include: { authorization: true },
  });
  if (!row) return null;
  const unfinished = row.state !== "done" && row.state !== "failed";
  const stale = unfinished && now.getTime() - row.heartbeatAt.getTime() > INGEST_STALE_MS;
  // A stale ingest whose accounts are stored has done the flow's part; the rest is per account.
  const state: BankIngestState = stale ? (row.state === "history" ? "done" : "failed") : row.state;
  return {
    state,
    accountsTotal: row.accountsTotal,
    accountsDone: row.accountsDone,
    historyDone: row.historyDone,
    failure: stale && state === "failed" ? "interrupted" : row.failure,
    ready: state === "history" || state === "done",
    bank: {
      name: row.authorization.aspspName,
      country: row.authorization.aspspCountry,
      psuType: row.authorization.psuType,
    },
  };
}
