import { hostname } from "node:os";
import { rawSetting } from "../env";
import { runJanitor } from "../janitor";
import { runConsentReminders } from "../account/consent-reminders";
import type { ScheduledJob } from "./boss";
import { QUEUES } from "./runtime";
import { sweepOverdueDeliveries } from "../webhooks/deliver";

/**
 * The service's scheduled jobs (docs/operations.md#background-jobs), in UTC.
 * Each runs on one instance per occurrence, whichever claims it first.
 */

/**
 * The janitor (lib/janitor): expired rows removed in small batches, security
 * events past the audit log's retention among them.
 */
export const JANITOR_JOB: ScheduledJob = {
  queue: QUEUES.janitor,
  cron: "*/15 * * * *",
  run: () => runJanitor(),
};

/**
 * Bank consents ending (lib/account/consent-reminders.ts), every hour: the
 * person mailed once some days before, with the link that renews it.
 */
export const CONSENTS_JOB: ScheduledJob = {
  queue: QUEUES.consents,
  cron: "7 * * * *",
  run: () => runConsentReminders(),
};

/**
 * Webhook deliveries whose attempt is more than a minute overdue queued
 * again (lib/webhooks/deliver.ts), every minute: a job lost with the process
 * that held it, or one the queue was away to take.
 */
export const WEBHOOK_SWEEP_JOB: ScheduledJob = {
  queue: QUEUES.webhookSweep,
  cron: "* * * * *",
  run: async () => ({ queued: await sweepOverdueDeliveries() }),
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
  const schedules = [JANITOR_JOB, CONSENTS_JOB, WEBHOOK_SWEEP_JOB];
  if (rawSetting("JOBS_CLUSTER_PROBE") === "true") schedules.push(CLUSTER_PROBE_JOB);
  return schedules;
}
