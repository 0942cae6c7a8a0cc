import { db } from "../db/client";
import { EMPTY_SQL, executeIn, SqlFragment, sql, statement } from "../db/sql";
import { APPROVAL_BUCKETS, type FlowEvent } from "./events";

/**
 * Hand-written because the query API cannot say it (docs/database.md, rule 2):
 * a conditional `UPDATE … RETURNING` that claims the flow's event bit, and
 * `INSERT … ON CONFLICT` with expressions, in one statement.
 */

/** The approval time buckets, as a literal array (fixed numbers, never input). */
const BUCKET_ARRAY = new SqlFragment(
  [
    `ARRAY[${APPROVAL_BUCKETS.map((bound) => {
      if (!Number.isInteger(bound)) throw new Error(`not a bucket: ${bound}`);
      return bound;
    }).join(",")}]::int[]`,
  ],
  [],
);
const LAST_BUCKET = APPROVAL_BUCKETS.at(-1) ?? 3600;

/** An approval also adds one to its time bucket (the time from start to completion). */
const approvalTime = sql`, timed AS (
          INSERT INTO "FlowApprovalTime" ("partnerId", "clientId", "hour", "bucket", "count")
          SELECT "partnerId", "clientId", date_trunc('hour', "startedAt"),
            coalesce(
              (SELECT min(bound) FROM unnest(${BUCKET_ARRAY}) AS bound
                WHERE bound >= extract(epoch FROM "completedAt" - "startedAt")),
              ${LAST_BUCKET}),
            1
          FROM owned WHERE "completedAt" IS NOT NULL
          ON CONFLICT ("partnerId", "hour", "clientId", "bucket")
          DO UPDATE SET "count" = "FlowApprovalTime"."count" + 1
        )`;

/**
 * Marks `bit` on the flow and, on the first time only, counts `event` for the
 * flow's start hour (an approval also in its time bucket). Flows of a house
 * client (no partner) are marked but counted nowhere.
 */
const countFlowStepOnce = statement(
  "analytics.countFlowStepOnce",
  (flowId: string, event: FlowEvent, detail: string, bit: number) => sql`
    WITH marked AS (
      UPDATE "Flow" SET "analyticsMarks" = "analyticsMarks" | ${bit}
      WHERE "id" = ${flowId}::uuid AND ("analyticsMarks" & ${bit}) = 0
      RETURNING "clientId", "analyticsStart" AS "startedAt", "completedAt"
    ), owned AS (
      SELECT c."partnerId", m."clientId", m."startedAt", m."completedAt"
      FROM marked m JOIN "Client" c ON c."id" = m."clientId"
      WHERE c."partnerId" IS NOT NULL
    ), counted AS (
      INSERT INTO "FlowStepCount" ("partnerId", "clientId", "hour", "event", "detail", "count")
      SELECT "partnerId", "clientId", date_trunc('hour', "startedAt"), ${event}, ${detail}, 1
      FROM owned
      ON CONFLICT ("partnerId", "hour", "clientId", "event", "detail")
      DO UPDATE SET "count" = "FlowStepCount"."count" + 1
    )${event === "approved" ? approvalTime : EMPTY_SQL}
    SELECT 1`,
  [
    ["00000000-0000-0000-0000-000000000000", "started", "", 1],
    ["00000000-0000-0000-0000-000000000000", "approved", "", 16],
  ],
);

/** Runs countFlowStepOnce through Prisma: the mark and the counts are stored together or not at all. */
export async function markAndCountFlowStep(
  flowId: string,
  event: FlowEvent,
  detail: string,
  bit: number,
): Promise<void> {
  await executeIn(db(), countFlowStepOnce(flowId, event, detail, bit));
}
