import { z } from "zod";
import { WebhookError } from "../webhooks/endpoints";
import type { ViolationCode } from "./violations";

/**
 * What the dashboard sees of a webhook endpoint and its deliveries: never a
 * secret (only at creation and rotation), never a response body beyond the
 * first KiB the delivery kept.
 */

export const WebhookEndpointWire = z
  .object({
    id: z.string(),
    url: z.string(),
    eventTypes: z.array(z.string()),
    enabled: z.boolean(),
    disabledReason: z
      .string()
      .nullable()
      .describe(
        "Why it is disabled: `failing` (deliveries failed for days) or `partner` (turned off here)",
      ),
    disabledAt: z.string().nullable(),
    createdAt: z.string(),
    previousSecretExpiresAt: z
      .string()
      .nullable()
      .describe("Until when the secret before the last rotation still signs deliveries too"),
  })
  .meta({ id: "WebhookEndpoint" });
export type WebhookEndpointWire = z.infer<typeof WebhookEndpointWire>;

/** A new endpoint: its signing secret is shown here once. */
export const NewWebhookEndpointWire = WebhookEndpointWire.extend({
  secret: z.string().describe("The `whsec_` signing secret; shown once"),
}).meta({ id: "NewWebhookEndpoint" });

export const RotatedWebhookSecretWire = z
  .object({ secret: z.string(), previousSecretExpiresAt: z.string() })
  .meta({ id: "RotatedWebhookSecret" });

export const WebhookAttemptWire = z
  .object({
    attempt: z.number().int(),
    at: z.string(),
    responseCode: z.number().int().nullable(),
    latencyMs: z.number().int().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: "WebhookAttempt" });
export type WebhookAttemptWire = z.infer<typeof WebhookAttemptWire>;

export const WebhookDeliveryWire = z
  .object({
    id: z.string(),
    eventId: z.string().describe("The event's `webhook-id`, kept by every retry and replay"),
    eventType: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    createdAt: z.string(),
    lastAttemptAt: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    responseCode: z.number().int().nullable(),
    latencyMs: z.number().int().nullable(),
    error: z.string().nullable(),
    attemptLog: z.array(WebhookAttemptWire),
  })
  .meta({ id: "WebhookDelivery" });
export type WebhookDeliveryWire = z.infer<typeof WebhookDeliveryWire>;

/** A delivery queued by a test event or a replay. */
export const QueuedWebhookDeliveryWire = z
  .object({ eventId: z.string(), deliveryId: z.string() })
  .meta({ id: "QueuedWebhookDelivery" });

/** The body of an endpoint's creation (both required) or change (each optional, `enabled` too). */
export const WebhookEndpointBody = z
  .object({
    url: z.string().optional().describe("https, a public address"),
    eventTypes: z.array(z.string()).optional(),
    enabled: z.boolean().optional().describe("Only when changing an endpoint"),
  })
  .meta({ id: "WebhookEndpointBody" });

/** The endpoint row as the webhooks library answers it (prisma's WebhookEndpoint). */
export interface EndpointRow {
  id: string;
  url: string;
  eventTypes: string[];
  disabledAt: Date | null;
  disabledReason: string | null;
  createdAt: Date;
  previousSecretExpiresAt: Date | null;
}

/** A delivery row with its event's type and its attempts. */
export interface DeliveryRow {
  id: string;
  eventId: string;
  status: string;
  attempts: number;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  lastResponseCode: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  event?: { type: string } | null;
  eventType?: string;
  attemptsLog?: readonly AttemptRow[];
}

export interface AttemptRow {
  attempt: number;
  at: Date;
  responseCode: number | null;
  latencyMs: number | null;
  error: string | null;
}

const iso = (value: Date | null | undefined) => (value ? value.toISOString() : null);

export function toEndpointWire(endpoint: EndpointRow): WebhookEndpointWire {
  const graceLeft =
    endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt.getTime() > Date.now();
  return {
    id: endpoint.id,
    url: endpoint.url,
    eventTypes: [...endpoint.eventTypes],
    enabled: endpoint.disabledAt === null,
    disabledReason: endpoint.disabledAt ? (endpoint.disabledReason ?? "partner") : null,
    disabledAt: iso(endpoint.disabledAt),
    createdAt: endpoint.createdAt.toISOString(),
    previousSecretExpiresAt: graceLeft ? iso(endpoint.previousSecretExpiresAt) : null,
  };
}

const STATUSES = new Set(["pending", "delivered", "failed"]);

export function toDeliveryWire(delivery: DeliveryRow): WebhookDeliveryWire {
  const attempts = [...(delivery.attemptsLog ?? [])].sort((a, b) => a.attempt - b.attempt);
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType ?? delivery.event?.type ?? "",
    status: (STATUSES.has(delivery.status)
      ? delivery.status
      : "pending") as WebhookDeliveryWire["status"],
    attempts: delivery.attempts,
    createdAt: delivery.createdAt.toISOString(),
    lastAttemptAt: iso(delivery.lastAttemptAt),
    nextAttemptAt: delivery.status === "pending" ? iso(delivery.nextAttemptAt) : null,
    responseCode: delivery.lastResponseCode,
    latencyMs: delivery.lastLatencyMs,
    error: delivery.lastError,
    attemptLog: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      at: attempt.at.toISOString(),
      responseCode: attempt.responseCode,
      latencyMs: attempt.latencyMs,
      error: attempt.error,
    })),
  };
}

/** Codes of the webhooks library that refuse the address the partner typed. */
const URL_CODES: readonly ViolationCode[] = [
  "invalid_url",
  "not_https",
  "credentials",
  "port_not_allowed",
  "private_address",
  "unreachable",
  "fragment",
  "too_long",
];

export type WebhookRefusal =
  | { kind: "url"; code: ViolationCode }
  | { kind: "event_types"; code: ViolationCode }
  | { kind: "too_many"; message: string };

/** How the dashboard answers a refusal of the webhooks library; null for any other error. */
export function webhookRefusal(error: unknown): WebhookRefusal | null {
  if (!(error instanceof WebhookError)) return null;
  if ((URL_CODES as readonly string[]).includes(error.code)) {
    return { kind: "url", code: error.code as ViolationCode };
  }
  if (error.code === "no_event_types") return { kind: "event_types", code: "required" };
  if (error.code === "unknown_event_type") {
    return { kind: "event_types", code: "unknown_event_type" };
  }
  if (error.code === "conflict") return { kind: "too_many", message: error.message };
  return null;
}
