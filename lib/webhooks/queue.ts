import { jobsRuntime, QUEUES } from "../jobs/runtime";
import { log } from "../log";

/**
 * Deliveries handed to the job queue (lib/jobs): one job per attempt, its
 * data the delivery's id only (the worker reads everything else from the
 * database, so nothing of the event sits in the job table). Without a queue
 * in this process (a one-off script) nothing is sent here: the per-minute
 * sweep (./deliver.ts) finds the pending delivery and queues it. A job that
 * comes twice is harmless: the worker claims the attempt on the delivery row
 * first, and only one claim succeeds.
 */

export interface WebhookJobData {
  deliveryId: string;
}

/** Queues an attempt of each delivery, at `startAfter` or at once; never throws. */
export async function enqueueDeliveries(
  deliveryIds: readonly string[],
  startAfter?: Date,
): Promise<void> {
  const runtime = jobsRuntime();
  if (!runtime || deliveryIds.length === 0) return;
  try {
    await runtime.boss.insert(
      QUEUES.webhook,
      deliveryIds.map((deliveryId) => ({
        data: { deliveryId } satisfies WebhookJobData,
        ...(startAfter ? { startAfter } : {}),
      })),
    );
  } catch (error) {
    // The sweep queues it within a minute or two.
    log.warn("webhooks.enqueue_failed", { count: deliveryIds.length, error });
  }
}
