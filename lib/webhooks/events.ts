import { randomBytes } from "node:crypto";
import { db, type Prisma } from "../db/client";
import { log } from "../log";
import { enqueueDeliveries } from "./queue";
import type { WebhookEventData, WebhookEventType, WebhookPayload } from "./types";

/**
 * Records that something happened which partners hear about (docs/events.md):
 * one WebhookEvent row (its id is the `webhook-id` every retry keeps) and one
 * pending WebhookDelivery per enabled endpoint of the partner that asked for
 * the type, each queued for its first attempt. Called once the cause is
 * committed; a partner without an endpoint for the type gets no rows at all.
 */

export interface RecordedEvent {
  partnerId: string;
  type: WebhookEventType;
  data: WebhookEventData;
  /** When it happened; now by default. */
  at?: Date;
}

/** A fresh `webhook-id`: `msg_` and 128 random bits. */
export function newEventId(): string {
  return `msg_${randomBytes(16).toString("base64url")}`;
}

/**
 * Writes the event and its deliveries; answers the event id and the delivery
 * ids, or null when no endpoint of the partner wants the type.
 */
export async function writeEvent(
  event: RecordedEvent,
): Promise<{ eventId: string; deliveryIds: string[] } | null> {
  const endpoints = await db().webhookEndpoint.findMany({
    where: { partnerId: event.partnerId, disabledAt: null, eventTypes: { has: event.type } },
    select: { id: true },
  });
  if (endpoints.length === 0) return null;
  const at = event.at ?? new Date();
  const payload: WebhookPayload = {
    type: event.type,
    timestamp: at.toISOString(),
    data: event.data,
  };
  const eventId = newEventId();
  const deliveries = await db().$transaction(async (tx) => {
    await tx.webhookEvent.create({
      data: {
        id: eventId,
        partnerId: event.partnerId,
        type: event.type,
        payload: payload as unknown as Prisma.InputJsonObject,
      },
    });
    return Promise.all(
      endpoints.map((endpoint) =>
        tx.webhookDelivery.create({
          data: { eventId, endpointId: endpoint.id, nextAttemptAt: at },
          select: { id: true },
        }),
      ),
    );
  });
  const deliveryIds = deliveries.map((delivery) => delivery.id);
  // The first attempt at once, on whichever instance takes the job (./deliver.ts).
  await enqueueDeliveries(deliveryIds);
  return { eventId, deliveryIds };
}

/**
 * Records an event for its partner's endpoints. Never throws into the action
 * that caused it: a failure is logged, and the action stands.
 */
export async function recordEvent(event: RecordedEvent): Promise<void> {
  try {
    await writeEvent(event);
  } catch (error) {
    log.error("webhooks.record_failed", { type: event.type, error });
  }
}
