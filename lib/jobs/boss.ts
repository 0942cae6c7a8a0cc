import { hostname } from "node:os";
import { PgBoss, type Job, type JobWithMetadata, type Queue } from "pg-boss";
import { requireDatabaseUrl } from "../env";
import { log } from "../log";
import { countJob, watchJobQueues } from "../metrics";
import { DEFAULT_MAIL_RETRY, runMailJob, type MailJobData } from "./mail";
import { runWebhookJob, type DeliverOptions } from "../webhooks/deliver";
import type { WebhookJobData } from "../webhooks/queue";
import {
  JOBS_SCHEMA,
  jobsRuntime,
  QUEUES,
  setJobsRuntime,
  type MailRetrySettings,
  type QueueName,
} from "./runtime";
import { readQueueDepths } from "./status";

/**
 * The job queue's lifecycle (docs/operations.md#background-jobs): one pg-boss
 * per process, started by the launcher after the migrations and stopped on
 * shutdown after the HTTP server, in the schema `pgboss` of the service's own
 * database. Every instance runs the same workers and schedules: a job is
 * claimed by exactly one of them (`FOR UPDATE SKIP LOCKED`), and a schedule
 * sends one job per occurrence however many instances look at it (pg-boss
 * files each occurrence under a singleton key for its minute and claims the
 * cron pass itself with a row lock).
 */

/** A scheduled job: its queue, when it runs (cron, UTC) and what it does. */
export interface ScheduledJob {
  queue: QueueName;
  cron: string;
  run(job: Job<object>): Promise<unknown>;
}

export interface StartJobsOptions {
  databaseUrl?: string;
  /** The scheduled jobs (./schedules.ts in the service); none by default. */
  schedules?: readonly ScheduledJob[];
  /** Queued mail's tries; DEFAULT_MAIL_RETRY unless a test shortens it. */
  mailRetry?: MailRetrySettings;
  /** How often an idle worker looks for new jobs (pg-boss' default: 2 s). */
  pollingIntervalSeconds?: number;
  /** How often an instance tries to claim the cron pass (pg-boss' default: 30 s). */
  cronMonitorIntervalSeconds?: number;
  /** Names this instance in pg-boss' instance list. */
  instanceName?: string;
  /** How webhook deliveries resolve names (tests answer changing DNS with it). */
  webhooks?: DeliverOptions;
}

/** Webhook attempts one instance runs at once (each waits on a partner's receiver). */
const WEBHOOK_CONCURRENCY = 4;

/** Connections the queue opens at most: workers, schedules and maintenance share them. */
export const JOBS_POOL_SIZE = 4;

/** The mail queue keeps finished jobs one hour (their mail is sealed, and a sign-in code lives 15 minutes). */
const MAIL_KEPT_SECONDS = 60 * 60;
/** Other queues keep finished jobs a week, for `npm run admin -- jobs`. */
const KEPT_SECONDS = 7 * 24 * 60 * 60;

const QUEUE_OPTIONS: Record<QueueName, Omit<Queue, "name">> = {
  // A queued mail that no instance could start within a day is dropped.
  mail: {
    deleteAfterSeconds: MAIL_KEPT_SECONDS,
    retentionSeconds: 24 * 60 * 60,
    expireInSeconds: 60,
  },
  // A scheduled job retried twice, a minute apart; the next occurrence follows anyway.
  janitor: {
    deleteAfterSeconds: KEPT_SECONDS,
    retryLimit: 2,
    retryDelay: 60,
    expireInSeconds: 15 * 60,
  },
  // Like the janitor: the reminders' claims make a retried or repeated run send nothing twice.
  consents: {
    deleteAfterSeconds: KEPT_SECONDS,
    retryLimit: 2,
    retryDelay: 60,
    expireInSeconds: 15 * 60,
  },
  "cluster-probe": { deleteAfterSeconds: KEPT_SECONDS, retryLimit: 0, expireInSeconds: 60 },
  // One attempt of a webhook delivery; the delivery row holds its schedule, and a job that
  // failed outright (the database away) is tried again a little later.
  webhook: {
    deleteAfterSeconds: 24 * 60 * 60,
    retentionSeconds: 4 * 24 * 60 * 60,
    retryLimit: 3,
    retryDelay: 30,
    expireInSeconds: 120,
  },
  "webhook-sweep": { deleteAfterSeconds: 60 * 60, retryLimit: 0, expireInSeconds: 60 },
};

async function ensureQueue(boss: PgBoss, name: QueueName): Promise<void> {
  const options = QUEUE_OPTIONS[name];
  if (await boss.getQueue(name)) await boss.updateQueue(name, options);
  else await boss.createQueue(name, options);
}

/** A scheduled job's handler, counted: a throw fails the try and pg-boss retries it. */
function scheduledHandler(scheduled: ScheduledJob) {
  return async ([job]: JobWithMetadata<object>[]) => {
    if (!job) return;
    try {
      const result = await scheduled.run(job);
      countJob(scheduled.queue, "completed");
      return result;
    } catch (error) {
      countJob(scheduled.queue, job.retryCount >= job.retryLimit ? "failed" : "retried");
      log.error("jobs.failed", { queue: scheduled.queue, job_id: job.id, error });
      throw error;
    }
  };
}

function newBoss(
  options: Pick<StartJobsOptions, "databaseUrl" | "cronMonitorIntervalSeconds" | "instanceName">,
  roles: { supervise: boolean; schedule: boolean; registerInstance?: boolean },
): PgBoss {
  const boss = new PgBoss({
    connectionString: options.databaseUrl ?? requireDatabaseUrl(),
    schema: JOBS_SCHEMA,
    max: JOBS_POOL_SIZE,
    application_name: "bank-connect/jobs",
    instanceName: options.instanceName ?? `bank-connect@${hostname()}`,
    ...roles,
    ...(options.cronMonitorIntervalSeconds
      ? { cronMonitorIntervalSeconds: options.cronMonitorIntervalSeconds }
      : {}),
  });
  // pg-boss reports a failed poll or maintenance pass as an event; unheard, it would end the process.
  boss.on("error", (error) => log.error("jobs.error", { error }));
  return boss;
}

/**
 * A started queue with the mail worker and `schedules`' workers and
 * schedules: installs or migrates pg-boss' schema and makes the queues. The
 * service has one per process (startJobs); tests make several to play
 * several instances.
 */
export async function createJobs(options: StartJobsOptions = {}): Promise<PgBoss> {
  const boss = newBoss(options, { supervise: true, schedule: true });
  await boss.start();
  try {
    const schedules = options.schedules ?? [];
    const queues = [QUEUES.mail, QUEUES.webhook, ...schedules.map((scheduled) => scheduled.queue)];
    for (const name of queues) {
      await ensureQueue(boss, name);
    }
    const polling = { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2 };
    await boss.work(
      QUEUES.mail,
      { ...polling, includeMetadata: true, perJobResults: true, batchSize: 1 } as const,
      (jobs: JobWithMetadata<MailJobData>[]) => Promise.all(jobs.map((job) => runMailJob(job))),
    );
    // One webhook attempt per job; the delivery row holds its schedule (lib/webhooks/deliver.ts).
    await boss.work(
      QUEUES.webhook,
      { ...polling, batchSize: 1, localConcurrency: WEBHOOK_CONCURRENCY },
      ([job]: Job<WebhookJobData>[]) =>
        job ? runWebhookJob(job, options.webhooks) : Promise.resolve(undefined),
    );
    for (const scheduled of schedules) {
      await boss.work(
        scheduled.queue,
        { ...polling, includeMetadata: true, batchSize: 1 },
        scheduledHandler(scheduled),
      );
      await boss.schedule(scheduled.queue, scheduled.cron, null, { tz: "UTC" });
    }
    // A schedule this build no longer has stops sending jobs.
    const names = new Set<string>(schedules.map((scheduled) => scheduled.queue));
    for (const schedule of await boss.getSchedules()) {
      if (!names.has(schedule.name)) await boss.unschedule(schedule.name, schedule.key);
    }
  } catch (error) {
    await boss.stop({ graceful: false }).catch(() => undefined);
    throw error;
  }
  return boss;
}

/**
 * Starts this process's queue (the launcher, or a test that needs one): the
 * mail that fails for a passing reason is queued from then on. Idempotent:
 * a second call answers the running queue.
 */
export async function startJobs(options: StartJobsOptions = {}): Promise<PgBoss> {
  const running = jobsRuntime();
  if (running) return running.boss;
  const boss = await createJobs(options);
  setJobsRuntime({ boss, mailRetry: options.mailRetry ?? DEFAULT_MAIL_RETRY });
  watchJobQueues(() => readQueueDepths(boss));
  return boss;
}

/**
 * The queue opened to be looked at (`npm run admin -- jobs`): no worker, no
 * schedule, no maintenance; the schema is installed if the service never
 * ran. Stop it after use.
 */
export async function openJobsForReading(databaseUrl?: string): Promise<PgBoss> {
  const boss = newBoss(
    { databaseUrl, instanceName: "bank-connect/admin" },
    { supervise: false, schedule: false, registerInstance: false },
  );
  await boss.start();
  return boss;
}

/**
 * Stops this process's queue, if one runs: no new job is taken, the jobs in
 * hand get up to `timeoutMs` to finish (a job cut off is tried again by
 * another instance once it expires), then its connections close.
 */
export async function stopJobs(timeoutMs = 10_000): Promise<void> {
  const runtime = jobsRuntime();
  if (!runtime) return;
  setJobsRuntime(null);
  watchJobQueues(null);
  await runtime.boss.stop({ graceful: true, timeout: timeoutMs });
}
