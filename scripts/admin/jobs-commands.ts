import { openJobsForReading } from "../../lib/jobs/boss";
import { jobsStatus, RECENT_FAILURES_HOURS } from "../../lib/jobs/status";
import type { Command } from "./commands";

/** `npm run admin -- jobs`: what the background job queue holds (docs/operations.md#background-jobs). */
export const JOBS_COMMANDS: readonly Command[] = [
  {
    name: "jobs",
    usage: "jobs",
    summary: "the background job queues: queued, active, failed recently, next scheduled run",
    details: [
      `Per queue: jobs waiting (retries included), running now, failed in the last ${RECENT_FAILURES_HOURS} hours`,
      "(kept for the queue's retention), when a job last completed, and the schedule with its next",
      "run (UTC). Counted from the pgboss schema of the service's database at the moment of asking.",
    ].join(" "),
    options: {},
    async run() {
      const boss = await openJobsForReading();
      try {
        return await jobsStatus(boss);
      } finally {
        await boss.stop({ graceful: false });
      }
    },
  },
];
