import { query, sql, statement } from "../db/sql";

/**
 * Hand-written because the query API cannot say it (docs/database.md, rule 2):
 * a batched delete (`DELETE … WHERE id IN (SELECT … LIMIT n)`).
 */

/** Deletes at most `batchSize` events older than `before`; returns how many it deleted. */
const pruneBatch = statement(
  "audit.pruneBatch",
  (before: Date, batchSize: number) => sql`WITH gone AS (
      DELETE FROM "AuditEvent" WHERE "id" IN (
        SELECT "id" FROM "AuditEvent" WHERE "at" < ${before} LIMIT ${batchSize})
      RETURNING 1)
      SELECT count(*)::int AS "removed" FROM gone`,
  [[new Date("2026-01-01T00:00:00Z"), 1000]],
);

/** One batch of a prune: the number of events it deleted. */
export async function deleteAuditEventsBatch(before: Date, batchSize: number): Promise<number> {
  const [row] = await query<{ removed: number }>(pruneBatch(before, batchSize));
  return row?.removed ?? 0;
}
