import { countAuditEventsBefore, pruneAuditEvents } from "../audit/query";
import { log } from "../log";
import { countJanitorRun } from "../metrics";
import { runCount, runRemoval } from "./queries";
import { AUDIT_RULE, RULES, type JanitorRule } from "./rules";

/**
 * The janitor (docs/operations.md#cleanup-janitor): removes the rows that are
 * past their retention (./rules.ts), table by table, in small batches. Each
 * batch is one DELETE of at most `batchSize` rows picked by the table's
 * expiry index, its own statement and transaction, so no lock is held for
 * long and requests go on meanwhile; a table is done at the first batch that
 * removes fewer than a full batch. Safe to run from several instances at
 * once: a row removed by one is simply not found by the other.
 */

export const DEFAULT_BATCH_SIZE = 1000;

export interface JanitorReport {
  startedAt: string;
  finishedAt: string;
  tables: Array<{ table: string; removed: number; retention: string }>;
}

export interface JanitorOptions {
  /** The time the retentions count back from (the clock by default). */
  now?: Date;
  /** Rows per DELETE statement. */
  batchSize?: number;
}

async function removeDue(rule: JanitorRule, now: Date, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await runRemoval(rule.remove(now, batchSize));
    total += removed;
    if (removed < batchSize) return total;
  }
}

function checkBatchSize(batchSize: number): number {
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new RangeError("batchSize must be a whole number of at least 1");
  }
  return batchSize;
}

/**
 * Removes every row past its retention at `now`, table after table (a flow
 * before the codes it leaves without a flow); returns what it removed. The
 * admin CLI's `janitor run` calls this and prints the report itself.
 */
export async function removeExpiredRows(options: JanitorOptions = {}): Promise<JanitorReport> {
  const started = new Date();
  const now = options.now ?? started;
  const batchSize = checkBatchSize(options.batchSize ?? DEFAULT_BATCH_SIZE);
  const tables: JanitorReport["tables"] = [];
  for (const rule of RULES) {
    const removed = await removeDue(rule, now, batchSize);
    tables.push({ table: rule.table, removed, retention: rule.retention });
  }
  const audit = await pruneAuditEvents(AUDIT_RULE.cutoff(now), { batchSize });
  tables.push({ table: AUDIT_RULE.table, removed: audit, retention: AUDIT_RULE.retention });
  return { startedAt: started.toISOString(), finishedAt: new Date().toISOString(), tables };
}

/**
 * One janitor run in the service (what a schedule calls): removeExpiredRows,
 * counted in the metrics and logged as one `janitor.run` line.
 */
export async function runJanitor(options: JanitorOptions = {}): Promise<JanitorReport> {
  const report = await removeExpiredRows(options);
  const finished = new Date(report.finishedAt);
  const durationMs = finished.getTime() - Date.parse(report.startedAt);
  countJanitorRun(report.tables, durationMs / 1000, finished);
  log.info("janitor.run", {
    duration_ms: durationMs,
    removed_total: report.tables.reduce((sum, entry) => sum + entry.removed, 0),
    tables: report.tables.map(({ table, removed }) => ({ table, removed })),
  });
  return report;
}

/** How many rows of each table are past their retention at `now`: what a run would remove. */
export async function janitorStatus(
  now: Date = new Date(),
): Promise<Array<{ table: string; expired: number; retention: string }>> {
  const rows = [];
  for (const rule of RULES) {
    const expired = await runCount(rule.count(now));
    rows.push({ table: rule.table, expired, retention: rule.retention });
  }
  const audit = await countAuditEventsBefore(AUDIT_RULE.cutoff(now));
  rows.push({ table: AUDIT_RULE.table, expired: audit, retention: AUDIT_RULE.retention });
  return rows;
}
