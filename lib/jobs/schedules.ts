import { hostname } from "node:os";
import { pruneAuditEvents, AUDIT_RETENTION_DAYS } from "../audit/query";
import { rawSetting } from "../env";
import { runJanitor } from "../janitor";
import { log } from "../log";
import type { ScheduledJob } from "./boss";
import { QUEUES } from "./runtime";

/**
 * The service's scheduled jobs (docs/operations.md#background-jobs), in UTC.
 * Each runs on one instance per occurrence, whichever claims it first.
 */

const DAY_MS = 24 * 60 * 60_000;

/** The janitor (lib/janitor): expired rows removed in small batches. */
export const JANITOR_JOB: ScheduledJob = {
  queue: QUEUES.janitor,
  cron: "*/15 * * * *",
  run: () => runJanitor(),
};

/** Security events older than the audit log's retention removed, as `admin audit prune` does. */
export const AUDIT_RETENTION_JOB: ScheduledJob = {
  queue: QUEUES.auditRetention,
  cron: "17 3 * * *",
  async run() {
    const before = new Date(Date.now() - AUDIT_RETENTION_DAYS * DAY_MS);
    const deleted = await pruneAuditEvents(before);
    log.info("audit.pruned", { deleted, before: before.toISOString() });
    return { deleted, before: before.toISOString() };
  },
};

/** Which process ran a job: the cluster run tells its instances apart by it. */
export const INSTANCE_ID = `${hostname()}:${process.pid}`;

/**
 * The cluster run's probe (scripts/cluster/jobs.ts), every minute, only where
 * JOBS_CLUSTER_PROBE=true: each run is stored on its job with the instance
 * that ran it, so the run can count runs per minute across instances.
 */
export const CLUSTER_PROBE_JOB: ScheduledJob = {
  queue: QUEUES.clusterProbe,
  cron: "* * * * *",
  run: () => Promise.resolve({ instance: INSTANCE_ID, ran_at: new Date().toISOString() }),
};

/** The schedules this process runs. */
export function serviceSchedules(): ScheduledJob[] {
  const schedules = [JANITOR_JOB, AUDIT_RETENTION_JOB];
  if (rawSetting("JOBS_CLUSTER_PROBE") === "true") schedules.push(CLUSTER_PROBE_JOB);
  return schedules;
}
