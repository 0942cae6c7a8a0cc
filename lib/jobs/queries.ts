import { query, sql, SqlFragment, statement } from "../db/sql";
import { JOBS_SCHEMA } from "./runtime";

/**
 * Hand-written because the query API cannot say it (docs/database.md, rule 2):
 * pg-boss' own tables (its `pgboss` schema) are not in the Prisma schema.
 */

/** pg-boss' job table (a fixed schema name, never input). */
const JOB_TABLE = (() => {
  if (!/^[a-z_]+$/.test(JOBS_SCHEMA)) throw new Error(`not a schema name: ${JOBS_SCHEMA}`);
  return new SqlFragment([`${JOBS_SCHEMA}.job`], []);
})();

export interface JobCountRow {
  name: string;
  queued: number;
  active: number;
  failed: number;
  failed_recently: number;
  last_completed: Date | null;
}

/**
 * Per queue (pg-boss' internal ones left out): jobs waiting (retries
 * included), running, failed, failed in the last `recentHours`, and when a
 * job last completed; counted at the moment of asking.
 */
const jobCounts = statement(
  "jobs.counts",
  (recentHours: number) => sql`SELECT name,
        count(*) FILTER (WHERE state IN ('created', 'retry'))::int AS queued,
        count(*) FILTER (WHERE state = 'active')::int AS active,
        count(*) FILTER (WHERE state = 'failed')::int AS failed,
        count(*) FILTER (WHERE state = 'failed'
          AND completed_on > now() - make_interval(hours => ${recentHours}))::int AS failed_recently,
        max(completed_on) FILTER (WHERE state = 'completed') AS last_completed
      FROM ${JOB_TABLE}
      WHERE name NOT LIKE '\\_\\_%'
      GROUP BY name`,
  [[24]],
);

export function countJobsByQueue(recentHours: number): Promise<JobCountRow[]> {
  return query<JobCountRow>(jobCounts(recentHours));
}
