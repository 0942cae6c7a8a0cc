import { randomBytes } from "node:crypto";
import type { PgBoss } from "pg-boss";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDatabaseUrl } from "../env";
import { admin, adminJson } from "../../test/admin-cli";
import { dropDatabase, ensureDatabase, withDatabase } from "../../scripts/lib/embedded-postgres";
import { testServerUrl } from "../../scripts/lib/test-server";
import { createJobs, type ScheduledJob } from "./boss";
import { JOBS_SCHEMA, QUEUES } from "./runtime";
import type { QueueStatus } from "./status";

/**
 * Several instances on one database, played by two pg-boss instances in this
 * process on a scratch database of their own: both run the same schedule
 * (every minute) and the same worker, and each occurrence runs once, on one
 * of them. Then `npm run admin -- jobs` reads the same database.
 */

const name = `bank_connect_jobs_${randomBytes(5).toString("hex")}`;
let serverUrl: string;
let url: string;
const bosses: PgBoss[] = [];
const runs: Array<{ instance: string; jobId: string }> = [];

function probe(instance: string): ScheduledJob {
  return {
    queue: QUEUES.clusterProbe,
    cron: "* * * * *",
    run(job) {
      runs.push({ instance, jobId: job.id });
      return Promise.resolve({ instance });
    },
  };
}

beforeAll(async () => {
  serverUrl = await testServerUrl();
  await ensureDatabase(serverUrl, name);
  url = withDatabase(serverUrl, name);
  // Both instances at once, as a rolling start would have it.
  const started = await Promise.all(
    ["a", "b"].map((instance) =>
      createJobs({
        databaseUrl: url,
        schedules: [probe(instance)],
        pollingIntervalSeconds: 0.5,
        cronMonitorIntervalSeconds: 1,
        instanceName: `test-${instance}`,
      }),
    ),
  );
  bosses.push(...started);
});

afterAll(async () => {
  await Promise.all(bosses.map((boss) => boss.stop({ graceful: false })));
  await dropDatabase(serverUrl, name).catch(() => undefined);
});

interface ProbeRow {
  id: string;
  state: string;
  retry_count: number;
  /** The minute the job was sent in: the occurrence it was sent for. */
  minute: string;
}

async function probeJobs(): Promise<ProbeRow[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<ProbeRow>(
      `SELECT id::text, state::text, retry_count,
          to_char(date_trunc('minute', created_on), 'YYYY-MM-DD HH24:MI') AS minute
        FROM ${JOBS_SCHEMA}.job
        WHERE name = $1 ORDER BY created_on`,
      [QUEUES.clusterProbe],
    );
    return rows;
  } finally {
    await client.end();
  }
}

describe("scheduled jobs on several instances", () => {
  it("two instances on one database run each occurrence of a schedule once", async () => {
    // Two occurrences: up to two minutes and a cron pass.
    const deadline = Date.now() + 150_000;
    let jobs = await probeJobs();
    while (jobs.filter((job) => job.state === "completed").length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      jobs = await probeJobs();
    }
    // Time for a second instance's duplicate, had there been one, to be sent and run.
    await new Promise((resolve) => setTimeout(resolve, 5000));
    jobs = await probeJobs();
    const completed = jobs.filter((job) => job.state === "completed");
    expect(completed.length).toBeGreaterThanOrEqual(2);
    // One job per minute, each run once, by one instance.
    expect(new Set(jobs.map((job) => job.minute)).size).toBe(jobs.length);
    expect(completed.every((job) => job.retry_count === 0)).toBe(true);
    const ran = runs.filter((run) => completed.some((job) => job.id === run.jobId));
    expect(ran).toHaveLength(completed.length);
    expect(new Set(ran.map((run) => run.jobId)).size).toBe(completed.length);
    // Every run belongs to a job of its own minute: none ran without one.
    expect(runs.every((run) => jobs.some((job) => job.id === run.jobId))).toBe(true);
  }, 200_000);

  it("npm run admin -- jobs lists each queue: queued, active, failed recently, the schedule and its next run", async () => {
    setDatabaseUrl(url);
    const before = Date.now();
    const rows = adminJson<QueueStatus[]>(await admin("jobs"));
    const byQueue = new Map(rows.map((row) => [row.queue, row]));
    const completed = (await probeJobs()).filter((job) => job.state === "completed").length;

    const probeRow = byQueue.get(QUEUES.clusterProbe);
    expect(probeRow).toMatchObject({
      queued: expect.any(Number) as number,
      active: expect.any(Number) as number,
      failed_recently: 0,
      schedule: "* * * * * (UTC)",
    });
    expect(completed).toBeGreaterThanOrEqual(2);
    expect(Date.parse(probeRow!.last_completed ?? "")).toBeLessThanOrEqual(Date.now());
    const next = Date.parse(probeRow!.next_run ?? "");
    expect(next).toBeGreaterThan(before);
    expect(next).toBeLessThanOrEqual(before + 61_000);
    expect(new Date(next).getUTCSeconds()).toBe(0);

    // The mail queue is there with nothing in it, and has no schedule.
    expect(byQueue.get(QUEUES.mail)).toEqual({
      queue: QUEUES.mail,
      queued: 0,
      active: 0,
      failed_recently: 0,
      last_completed: null,
      schedule: null,
      next_run: null,
    });
    // pg-boss' own internal queues are not listed.
    expect(rows.every((row) => !row.queue.startsWith("__"))).toBe(true);
  }, 90_000);
});
