import { randomUUID } from "node:crypto";
import { db, type Prisma } from "../../lib/db/client";
import { newEventId } from "../../lib/webhooks/events";
import { newSecretBytes, sealSecret } from "../../lib/webhooks/signing";
import { WEBHOOK_TEST_EVENT } from "../../lib/webhooks/types";
import type { FuzzContext } from "./types";

/**
 * A webhook endpoint with one delivery for each of two partners, written
 * straight to the database: their address is a documentation address
 * (192.0.2.0/24), so a delivery the service's worker attempts is refused
 * before any connection and nothing leaves the machine.
 */

async function endpointWithDelivery(partnerId: string) {
  const id = randomUUID();
  await db().webhookEndpoint.create({
    data: {
      id,
      partnerId,
      url: "https://192.0.2.10/fuzz-webhooks",
      eventTypes: ["access.granted", "access.ended"],
      secretSealed: sealSecret(id, newSecretBytes()),
    },
  });
  const eventId = newEventId();
  const at = new Date();
  await db().webhookEvent.create({
    data: {
      id: eventId,
      partnerId,
      type: WEBHOOK_TEST_EVENT,
      payload: {
        type: WEBHOOK_TEST_EVENT,
        timestamp: at.toISOString(),
        data: { endpoint_id: id },
      } as Prisma.InputJsonObject,
    },
  });
  const delivery = await db().webhookDelivery.create({
    data: { eventId, endpointId: id, status: "failed", attempts: 1, lastAttemptAt: at },
    select: { id: true },
  });
  return { endpointId: id, deliveryId: delivery.id };
}

export async function webhookFixtures(
  partnerId: string,
  otherPartnerId: string,
): Promise<FuzzContext["webhooks"]> {
  const mine = await endpointWithDelivery(partnerId);
  const other = await endpointWithDelivery(otherPartnerId);
  return {
    ...mine,
    otherEndpointId: other.endpointId,
    otherDeliveryId: other.deliveryId,
  };
}
