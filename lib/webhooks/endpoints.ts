import { randomUUID } from "node:crypto";
import { db, type Prisma } from "../db/client";
import { isUuid } from "../db/uuid";
import { bareHostname, checkHostAddress, type ResolveHost } from "../http/public-address";
import { newEventId } from "./events";
import { enqueueDeliveries } from "./queue";
import {
  isLoopbackAddress,
  MAX_ENDPOINTS_PER_PARTNER,
  MAX_URL_LENGTH,
  webhookNetwork,
} from "./settings";
import { formatSecret, newSecretBytes, sealSecret, WEBHOOK_SECRET_OVERLAP_MS } from "./signing";
import {
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_TEST_EVENT,
  type WebhookEventType,
  type WebhookPayload,
} from "./types";
import { lockName } from "../db/queries/locks";

/**
 * A partner's webhook endpoints (docs/events.md), as the dashboard and its
 * API manage them. Every function takes the partner's id and touches only
 * that partner's rows: an endpoint or delivery of another partner is "not
 * found" (null, or false for a delete), exactly like one that never existed.
 *
 * Refusals the partner can fix are thrown as WebhookError with a stable
 * code, which the routes turn into field errors.
 */

export const WEBHOOK_ERROR_CODES = [
  /** Not a URL, or too long. */
  "invalid_url",
  "too_long",
  /** Not https (http only to a loopback receiver in a local run). */
  "not_https",
  /** A user name or password in the URL. */
  "credentials",
  /** A `#fragment`: never sent, so never accepted. */
  "fragment",
  /** The name resolves to a private or reserved address (or is one). */
  "private_address",
  /** The name does not resolve. */
  "unreachable",
  /** No event type chosen. */
  "no_event_types",
  /** A type that is not one of WEBHOOK_EVENT_TYPES. */
  "unknown_event_type",
  /** The partner already has MAX_ENDPOINTS_PER_PARTNER endpoints (`reason: too_many_endpoints`). */
  "conflict",
] as const;

export type WebhookErrorCode = (typeof WEBHOOK_ERROR_CODES)[number];

export class WebhookError extends Error {
  constructor(
    readonly code: WebhookErrorCode,
    message: string,
    readonly reason?: string,
  ) {
    super(message);
    this.name = "WebhookError";
  }
}

/** An endpoint as listed: never its secret. */
export interface WebhookEndpointRow {
  id: string;
  partnerId: string;
  url: string;
  eventTypes: string[];
  disabledAt: Date | null;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
  previousSecretExpiresAt: Date | null;
}

const ENDPOINT_SELECT = {
  id: true,
  partnerId: true,
  url: true,
  eventTypes: true,
  disabledAt: true,
  disabledReason: true,
  createdAt: true,
  updatedAt: true,
  previousSecretExpiresAt: true,
} as const satisfies Prisma.WebhookEndpointSelect;

/**
 * Checks an endpoint address and answers it normalized: https (http only to
 * a loopback receiver where a local run allows it), no credentials, no
 * fragment, and a name whose every address is a public internet address,
 * like the logo fetch's guard (lib/http/public-address.ts). The same check
 * runs again before every delivery.
 */
export async function checkWebhookUrl(url: string, resolve?: ResolveHost): Promise<string> {
  if (url.length > MAX_URL_LENGTH) {
    throw new WebhookError("too_long", `the address must be at most ${MAX_URL_LENGTH} characters`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new WebhookError("invalid_url", "the address is not a valid URL");
  }
  const network = webhookNetwork(resolve);
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && network.allowLoopback)) {
    throw new WebhookError("not_https", "the address must start with https://");
  }
  if (parsed.username !== "" || parsed.password !== "") {
    throw new WebhookError("credentials", "the address must not contain a user name or password");
  }
  if (parsed.hash !== "" || url.trim().endsWith("#")) {
    throw new WebhookError("fragment", "the address must not contain a #fragment");
  }
  const hostname = bareHostname(parsed);
  const checked = await checkHostAddress(hostname, network);
  if (!checked.ok && checked.reason === "refused") {
    throw new WebhookError(
      "private_address",
      `${hostname} is ${checked.address}, which is not a public internet address`,
    );
  }
  if (!checked.ok) {
    throw new WebhookError("unreachable", `${hostname} does not resolve to an address`);
  }
  if (parsed.protocol === "http:" && !isLoopbackAddress(checked.address)) {
    throw new WebhookError("not_https", "the address must start with https://");
  }
  return parsed.href;
}

function checkEventTypes(eventTypes: readonly string[]): WebhookEventType[] {
  const unknown = eventTypes.filter(
    (type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type),
  );
  if (unknown.length > 0) {
    throw new WebhookError(
      "unknown_event_type",
      `${unknown.slice(0, 3).join(", ")} is not an event type`,
    );
  }
  if (eventTypes.length === 0) {
    throw new WebhookError("no_event_types", "choose at least one event type");
  }
  return [...new Set(eventTypes as WebhookEventType[])];
}

/** The partner's endpoint with this id, or null (another partner's, or none). */
async function ownEndpoint(partnerId: string, id: string) {
  if (!isUuid(partnerId) || !isUuid(id)) return null;
  return db().webhookEndpoint.findFirst({ where: { id, partnerId } });
}

/**
 * Adds an endpoint and answers it with its signing secret, which is shown
 * this once: only its sealed key bytes are stored.
 */
export async function createEndpoint(
  partnerId: string,
  input: { url: string; eventTypes: readonly string[] },
  resolve?: ResolveHost,
): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const eventTypes = checkEventTypes(input.eventTypes);
  const url = await checkWebhookUrl(input.url, resolve);
  const id = randomUUID();
  const key = newSecretBytes();
  const endpoint = await db().$transaction(async (tx) => {
    // One partner's adds one at a time, so the limit holds under concurrent requests.
    await lockName(tx, `webhook-endpoints:${partnerId}`);
    const count = await tx.webhookEndpoint.count({ where: { partnerId } });
    if (count >= MAX_ENDPOINTS_PER_PARTNER) {
      throw new WebhookError(
        "conflict",
        `a partner has at most ${MAX_ENDPOINTS_PER_PARTNER} webhook endpoints; delete one first`,
        "too_many_endpoints",
      );
    }
    return tx.webhookEndpoint.create({
      data: { id, partnerId, url, eventTypes, secretSealed: sealSecret(id, key) },
      select: ENDPOINT_SELECT,
    });
  });
  return { endpoint, secret: formatSecret(key) };
}

/**
 * Changes an endpoint's address, event types or whether it is on. Turning
 * it on again clears a disabling (also one made because it kept failing);
 * turning it off records `partner` as the reason.
 */
export async function updateEndpoint(
  partnerId: string,
  id: string,
  input: { url?: string; eventTypes?: readonly string[]; enabled?: boolean },
  resolve?: ResolveHost,
): Promise<WebhookEndpointRow | null> {
  const endpoint = await ownEndpoint(partnerId, id);
  if (!endpoint) return null;
  const data: Prisma.WebhookEndpointUpdateManyMutationInput = {};
  if (input.eventTypes !== undefined) data.eventTypes = checkEventTypes(input.eventTypes);
  if (input.url !== undefined) data.url = await checkWebhookUrl(input.url, resolve);
  if (input.enabled === true) {
    data.disabledAt = null;
    data.disabledReason = null;
  } else if (input.enabled === false && endpoint.disabledAt === null) {
    data.disabledAt = new Date();
    data.disabledReason = "partner";
  }
  const updated = await db().webhookEndpoint.updateMany({ where: { id, partnerId }, data });
  if (updated.count === 0) return null;
  return db().webhookEndpoint.findFirst({ where: { id, partnerId }, select: ENDPOINT_SELECT });
}

/** Deletes an endpoint with its deliveries; false when the partner has no such endpoint. */
export async function deleteEndpoint(partnerId: string, id: string): Promise<boolean> {
  if (!isUuid(partnerId) || !isUuid(id)) return false;
  const deleted = await db().webhookEndpoint.deleteMany({ where: { id, partnerId } });
  return deleted.count > 0;
}

/**
 * A new signing secret, shown this once. The one it replaces keeps signing
 * deliveries alongside it for 24 hours, so the partner can switch its
 * receiver without missing an event.
 */
export async function rotateSecret(
  partnerId: string,
  id: string,
): Promise<{ secret: string; previousSecretExpiresAt: Date } | null> {
  const endpoint = await ownEndpoint(partnerId, id);
  if (!endpoint) return null;
  const key = newSecretBytes();
  const previousSecretExpiresAt = new Date(Date.now() + WEBHOOK_SECRET_OVERLAP_MS);
  const updated = await db().webhookEndpoint.updateMany({
    // Only over the secret read: two rotations at once cannot both keep theirs.
    where: { id, partnerId, secretSealed: endpoint.secretSealed },
    data: {
      secretSealed: sealSecret(id, key),
      previousSecretSealed: endpoint.secretSealed,
      previousSecretExpiresAt,
    },
  });
  if (updated.count === 0) return rotateSecret(partnerId, id);
  return { secret: formatSecret(key), previousSecretExpiresAt };
}

/** The partner's endpoints, oldest first; never a secret. */
export async function listEndpoints(partnerId: string): Promise<WebhookEndpointRow[]> {
  if (!isUuid(partnerId)) return [];
  return db().webhookEndpoint.findMany({
    where: { partnerId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: ENDPOINT_SELECT,
  });
}

export interface WebhookAttemptRow {
  attempt: number;
  at: Date;
  responseCode: number | null;
  latencyMs: number | null;
  error: string | null;
  responseBody: string | null;
}

export interface WebhookDeliveryRow {
  id: string;
  eventId: string;
  eventType: string;
  status: "pending" | "delivered" | "failed";
  attempts: number;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  lastResponseCode: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  event: { type: string };
  attemptsLog: WebhookAttemptRow[];
}

/**
 * An endpoint's most recent deliveries, newest first, each with its event's
 * type and its attempts (oldest first); null when the partner has no such
 * endpoint. `nextAttemptAt` is when a pending delivery is tried next.
 */
export async function listDeliveries(
  partnerId: string,
  endpointId: string,
  limit = 20,
): Promise<WebhookDeliveryRow[] | null> {
  if (!(await ownEndpoint(partnerId, endpointId))) return null;
  const rows = await db().webhookDelivery.findMany({
    where: { endpointId, endpoint: { partnerId } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: Math.max(1, Math.min(100, Math.floor(limit))),
    include: {
      event: { select: { type: true } },
      attemptsLog: {
        orderBy: [{ attempt: "asc" }],
        select: {
          attempt: true,
          at: true,
          responseCode: true,
          latencyMs: true,
          error: true,
          responseBody: true,
        },
      },
    },
  });
  return rows.map((row) => ({ ...row, eventType: row.event.type }));
}

/**
 * Sends a `webhook.test` event to this endpoint only (whatever types it
 * subscribed to, and even while it is disabled: the partner is checking its
 * receiver). Answers the event and delivery ids, or null.
 */
export async function sendTestEvent(
  partnerId: string,
  endpointId: string,
): Promise<{ eventId: string; deliveryId: string } | null> {
  if (!(await ownEndpoint(partnerId, endpointId))) return null;
  const at = new Date();
  const eventId = newEventId();
  const payload: WebhookPayload = {
    type: WEBHOOK_TEST_EVENT,
    timestamp: at.toISOString(),
    data: { endpoint_id: endpointId },
  };
  const delivery = await db().$transaction(async (tx) => {
    await tx.webhookEvent.create({
      data: {
        id: eventId,
        partnerId,
        type: WEBHOOK_TEST_EVENT,
        payload: payload as unknown as Prisma.InputJsonObject,
      },
    });
    return tx.webhookDelivery.create({
      data: { eventId, endpointId, nextAttemptAt: at },
      select: { id: true },
    });
  });
  await enqueueDeliveries([delivery.id]);
  return { eventId, deliveryId: delivery.id };
}

/**
 * Delivers one delivery's event again, as a new delivery to the same
 * endpoint with the same body and the same `webhook-id` (a receiver that
 * already has it recognizes it), whatever the first one's state. Answers the
 * new delivery, or null when the partner has no such delivery.
 */
export async function replayDelivery(
  partnerId: string,
  deliveryId: string,
): Promise<{ eventId: string; deliveryId: string } | null> {
  if (!isUuid(partnerId) || !isUuid(deliveryId)) return null;
  const original = await db().webhookDelivery.findFirst({
    where: { id: deliveryId, endpoint: { partnerId }, event: { partnerId } },
    select: { eventId: true, endpointId: true },
  });
  if (!original) return null;
  const replay = await db().webhookDelivery.create({
    data: { eventId: original.eventId, endpointId: original.endpointId, nextAttemptAt: new Date() },
    select: { id: true },
  });
  await enqueueDeliveries([replay.id]);
  return { eventId: original.eventId, deliveryId: replay.id };
}
