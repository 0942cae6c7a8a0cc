import type { PgBoss } from "pg-boss";

/**
 * The process's job queue (pg-boss, in its own schema of the service's
 * database), kept on globalThis: the launcher starts it (lib/jobs/boss.ts),
 * and the code that queues work may run in Next's bundle, which loads its own
 * copy of this module. Only a type is imported here, so Next's bundle never
 * pulls in pg-boss itself.
 *
 * No queue runs unless something started it: unit tests and one-off scripts
 * have none, and work that would be queued fails as it did before
 * (lib/jobs/mail.ts).
 */

/** The schema pg-boss keeps its tables in (`pgboss.job`, `pgboss.schedule`, …). */
export const JOBS_SCHEMA = "pgboss";

export const QUEUES = {
  /** A mail whose first try failed for a passing reason, tried again (lib/jobs/mail.ts). */
  mail: "mail",
  /** Expired rows removed (lib/janitor), every 15 minutes. */
  janitor: "janitor",
  /** Reminders before a bank consent ends, and its expiry events (lib/account/consent-reminders.ts), hourly. */
  consents: "consents",
  /** One attempt of a webhook delivery (lib/webhooks/deliver.ts); the data is the delivery's id. */
  webhook: "webhook",
  /** Overdue webhook deliveries queued again (a job lost with its process), every minute. */
  webhookSweep: "webhook-sweep",
  /** The cluster run's probe: a job a minute that records which instance ran it. */
  clusterProbe: "cluster-probe",
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

export interface MailRetrySettings {
  /** Seconds before the first queued try; each further try waits about twice as long. */
  delaySeconds: number;
  /** The longest wait between two tries. */
  maxDelaySeconds: number;
  /** Tries of the queued job after its first one (pg-boss' retryLimit); the request made one before. */
  limit: number;
}

export interface JobsRuntime {
  boss: PgBoss;
  mailRetry: MailRetrySettings;
}

const KEY = Symbol.for("bank-connect.jobs");
const holder = globalThis as unknown as { [KEY]?: JobsRuntime | null };

/** The running queue of this process, or null when none was started. */
export function jobsRuntime(): JobsRuntime | null {
  return holder[KEY] ?? null;
}

export function setJobsRuntime(runtime: JobsRuntime | null): void {
  holder[KEY] = runtime;
}
