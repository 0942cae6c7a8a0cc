import type { PgBoss } from "pg-boss";
import type { JobQueueDepth } from "../metrics";
import { countJobsByQueue, type JobCountRow } from "./queries";
import { QUEUES } from "./runtime";

/**
 * What the queue holds, for `npm run admin -- jobs` and the queue depth
 * gauge: counted from pg-boss' job table at the moment of asking (its own
 * queue statistics are a cache up to a minute old).
 */

/** How far back a failed job counts as "failed recently". */
export const RECENT_FAILURES_HOURS = 24;

function countJobs(): Promise<JobCountRow[]> {
  return countJobsByQueue(RECENT_FAILURES_HOURS);
}

/** Every queue of the service, those without jobs included. */
async function queueNames(boss: PgBoss): Promise<string[]> {
  const queues = await boss.getQueues();
  const names = new Set<string>(Object.values(QUEUES).filter((name) => name !== "cluster-probe"));
  for (const queue of queues) if (!queue.name.startsWith("__")) names.add(queue.name);
  return [...names].sort();
}

export async function readQueueDepths(boss: PgBoss): Promise<JobQueueDepth[]> {
  const counts = new Map((await countJobs()).map((row) => [row.name, row]));
  return (await queueNames(boss)).map((queue) => {
    const row = counts.get(queue);
    return { queue, queued: row?.queued ?? 0, active: row?.active ?? 0, failed: row?.failed ?? 0 };
  });
}

export interface QueueStatus {
  queue: string;
  queued: number;
  active: number;
  failed_recently: number;
  last_completed: string | null;
  schedule: string | null;
  next_run: string | null;
}

/** Per queue: queued, active, failed in the last day, and when its schedule next sends a job. */
export async function jobsStatus(boss: PgBoss, now: Date = new Date()): Promise<QueueStatus[]> {
  const counts = new Map((await countJobs()).map((row) => [row.name, row]));
  const schedules = new Map((await boss.getSchedules()).map((s) => [s.name, s]));
  return (await queueNames(boss)).map((queue) => {
    const row = counts.get(queue);
    const schedule = schedules.get(queue);
    const next = schedule
      ? boss.previewSchedule(schedule.cron, { tz: schedule.timezone, from: now, count: 1 })[0]
      : undefined;
    return {
      queue,
      queued: row?.queued ?? 0,
      active: row?.active ?? 0,
      failed_recently: row?.failed_recently ?? 0,
      last_completed: row?.last_completed ? new Date(row.last_completed).toISOString() : null,
      schedule: schedule ? `${schedule.cron} (${schedule.timezone})` : null,
      next_run: next ? next.toISOString() : null,
    };
  });
}
