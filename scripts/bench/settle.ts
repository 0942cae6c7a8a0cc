import { readFileSync } from "node:fs";
import pg from "pg";

/**
 * Waits until PostgreSQL has no autovacuum worker running (at most
 * `maxMs`), and says how long that took. A row that writes thousands of
 * rows (the token exchange's codes and keys, the paging account's million
 * transactions) can set autovacuum off on those tables after it ends;
 * whichever row came next would share the two cores with it while its
 * baseline, measured later, would not.
 */
export async function settleDatabase(databaseUrl: string, maxMs = 60_000): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    // The maintenance a previous row's writes left due (dead rows, statistics,
    // dirty pages), done now rather than during the next measurement.
    await client.query("VACUUM (ANALYZE)");
    await client.query("CHECKPOINT");
    for (;;) {
      const { rows } = await client.query<{ busy: number }>(
        `SELECT count(*)::int AS "busy" FROM pg_stat_activity
          WHERE backend_type = 'autovacuum worker' AND state IS DISTINCT FROM 'idle'`,
      );
      if ((rows[0]?.busy ?? 0) === 0 || Date.now() - started > maxMs) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await client.end();
  }
  return Date.now() - started;
}

/**
 * The process id of the PostgreSQL server (the parent of every backend), so
 * that a measurement can count the database's CPU per request too (Linux
 * /proc; undefined elsewhere).
 */
export async function databaseServerPid(databaseUrl: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(`SELECT pg_backend_pid() AS "pid"`);
    const stat = readFileSync(`/proc/${rows[0]?.pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}
