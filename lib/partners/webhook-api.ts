import { db } from "../db/client";
import { isUuid } from "../db/uuid";
import { isDatabaseUnavailable } from "../db/faults";
import { readJsonBody } from "../http/body-limits";
import { temporarilyUnavailable } from "../http/outage";
import { errorJson, NO_STORE, privateJson } from "../http/respond";
import { log } from "../log";
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
} from "../webhooks/endpoints";
import { MAX_URL_LENGTH } from "../webhooks/settings";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../webhooks/types";
import { authenticateOwner } from "./owner-session";
import type { FieldViolation, ViolationCode } from "./violations";
import {
  toDeliveryWire,
  toEndpointWire,
  webhookRefusal,
  type WebhookEndpointWire,
} from "./webhook-wire";

/**
 * The partner dashboard's webhook endpoints (docs/events.md; the owner's
 * interactive session only, API keys get 403 like everywhere outside the
 * data operations of /docs/data):
 *
 *   GET    /api/partner/webhooks                                            list
 *   POST   /api/partner/webhooks                                            add (secret shown once)
 *   PATCH  /api/partner/webhooks/{endpointId}                               url, event types, enabled
 *   DELETE /api/partner/webhooks/{endpointId}                               delete
 *   POST   /api/partner/webhooks/{endpointId}/rotate-secret                 new secret, previous valid 24 h
 *   GET    /api/partner/webhooks/{endpointId}/deliveries                    recent deliveries and their attempts
 *   POST   /api/partner/webhooks/{endpointId}/test                          send a test event
 *   POST   /api/partner/webhooks/{endpointId}/deliveries/{deliveryId}/replay deliver one again
 *
 * An endpoint or delivery of another partner answers 404 and is never
 * touched: every lookup and write is scoped to the owner's partner.
 */

const WEBHOOK_FIELDS = ["url", "eventTypes", "enabled"] as const;

/** Recent deliveries listed per endpoint, and the most one request may ask for. */
export const DEFAULT_DELIVERY_LIMIT = 20;
export const MAX_DELIVERY_LIMIT = 100;

interface EndpointInput {
  url?: string;
  eventTypes?: WebhookEventType[];
  enabled?: boolean;
}

type InputParse = { ok: true; input: EndpointInput } | { ok: false; violations: FieldViolation[] };

const json = privateJson;
const refuse = errorJson;

const notFound = (what: "endpoint" | "delivery") => refuse(404, "not_found", `no such ${what}`);

/** Every refused field, named for the form field it belongs to (lib/partners/field-errors.ts). */
export const invalidEndpoint = (violations: FieldViolation[]) =>
  json(
    {
      error: "invalid_webhook_endpoint",
      error_description: violations.map((violation) => violation.message).join("; "),
      violations,
    },
    400,
  );

const violation = (field: string, code: ViolationCode, message: string): FieldViolation => ({
  field,
  code,
  message,
});

function checkUrlShape(raw: unknown): FieldViolation | null {
  if (typeof raw !== "string") return violation("url", "invalid_type", "url must be a string");
  if (raw.trim() === "") return violation("url", "required", "url must not be empty");
  if (raw.length > MAX_URL_LENGTH) {
    return violation("url", "too_long", `url must be at most ${MAX_URL_LENGTH} characters`);
  }
  return null;
}

function checkEventTypes(raw: unknown): { eventTypes: WebhookEventType[] } | FieldViolation {
  if (!Array.isArray(raw) || !raw.every((type) => typeof type === "string")) {
    return violation("eventTypes", "invalid_type", "eventTypes must be an array of strings");
  }
  const unknown = raw.filter((type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type));
  if (unknown.length > 0) {
    return violation(
      "eventTypes",
      "unknown_event_type",
      `eventTypes: ${unknown.slice(0, 3).join(", ")} is not an event type (${WEBHOOK_EVENT_TYPES.join(", ")})`,
    );
  }
  if (raw.length === 0) {
    return violation("eventTypes", "required", "eventTypes: choose at least one event type");
  }
  return { eventTypes: [...new Set(raw as WebhookEventType[])] };
}

/**
 * A create (url and eventTypes required) or update (every field optional)
 * body. Unknown fields are refused so a typo is not silently ignored. The
 * address itself is checked by the webhooks library (https, public address).
 */
export function parseEndpointInput(body: unknown, mode: "create" | "update"): InputParse {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return {
      ok: false,
      violations: [violation("body", "invalid_body", "the body must be a JSON object")],
    };
  }
  const raw = body as Record<string, unknown>;
  const violations: FieldViolation[] = [];
  for (const key of Object.keys(raw)) {
    const allowed = mode === "create" ? ["url", "eventTypes"] : WEBHOOK_FIELDS;
    if (!(allowed as readonly string[]).includes(key)) {
      violations.push(
        violation(key, "unknown_field", `${key} is not an endpoint field (${allowed.join(", ")})`),
      );
    }
  }
  if (mode === "create") {
    for (const field of ["url", "eventTypes"] as const) {
      if (raw[field] === undefined) {
        violations.push(violation(field, "required", `${field} is required`));
      }
    }
  }
  const input: EndpointInput = {};
  if (raw.url !== undefined) {
    const problem = checkUrlShape(raw.url);
    if (problem) violations.push(problem);
    else input.url = (raw.url as string).trim();
  }
  if (raw.eventTypes !== undefined) {
    const checked = checkEventTypes(raw.eventTypes);
    if ("eventTypes" in checked) input.eventTypes = checked.eventTypes;
    else violations.push(checked);
  }
  if (raw.enabled !== undefined && mode === "update") {
    if (typeof raw.enabled === "boolean") input.enabled = raw.enabled;
    else violations.push(violation("enabled", "invalid_type", "enabled must be true or false"));
  }
  return violations.length > 0 ? { ok: false, violations } : { ok: true, input };
}

/** The JSON body; undefined (refused as not an object) when oversized or malformed. */
async function readBody(request: Request): Promise<unknown> {
  const read = await readJsonBody(request);
  return read.ok ? read.value : undefined;
}

/**
 * The answer for a refusal of the webhooks library: an address it refused is
 * a field violation of `url`, event types one of `eventTypes`, and one
 * endpoint too many a 409; anything else goes on as a failure.
 */
function libraryRefusal(error: unknown): Response | null {
  const refusal = webhookRefusal(error);
  if (refusal === null) return null;
  const message = (error as Error).message;
  if (refusal.kind === "url") {
    return invalidEndpoint([violation("url", refusal.code, `url: ${message}`)]);
  }
  if (refusal.kind === "event_types") {
    return invalidEndpoint([violation("eventTypes", refusal.code, `eventTypes: ${message}`)]);
  }
  return refuse(409, "too_many_endpoints", refusal.message);
}

function toErrorResponse(error: unknown, path: string): Response {
  const refusal = libraryRefusal(error);
  if (refusal) return refusal;
  if (isDatabaseUnavailable(error)) {
    log.warn("partner.database_unavailable", { error, path });
    return temporarilyUnavailable();
  }
  log.error("partner.webhook_api_failed", { error, path });
  return refuse(500, "server_error", "something went wrong; try again");
}

/** Runs the operation for an authenticated owner; failures never leak internals. */
async function asOwner(
  request: Request,
  mutation: boolean,
  operation: (partnerId: string) => Promise<Response>,
): Promise<Response> {
  try {
    const owner = await authenticateOwner(request, { mutation });
    if (owner instanceof Response) return owner;
    return await operation(owner.partnerId);
  } catch (error) {
    return toErrorResponse(error, new URL(request.url).pathname);
  }
}

/** The partner's endpoints as the API lists them (also what the dashboard starts from). */
export async function listPartnerEndpoints(partnerId: string): Promise<WebhookEndpointWire[]> {
  return (await listEndpoints(partnerId)).map(toEndpointWire);
}

/** GET /api/partner/webhooks */
export function handleListEndpoints(request: Request): Promise<Response> {
  return asOwner(request, false, async (partnerId) => json(await listPartnerEndpoints(partnerId)));
}

/** POST /api/partner/webhooks: the signing secret is in this answer and nowhere else, ever. */
export function handleCreateEndpoint(request: Request): Promise<Response> {
  return asOwner(request, true, async (partnerId) => {
    const parsed = parseEndpointInput(await readBody(request), "create");
    if (!parsed.ok) return invalidEndpoint(parsed.violations);
    const { url = "", eventTypes = [] } = parsed.input;
    const created = await createEndpoint(partnerId, { url, eventTypes });
    log.info("partner.webhook_created", {
      partner_id: partnerId,
      endpoint_id: created.endpoint.id,
    });
    return json({ ...toEndpointWire(created.endpoint), secret: created.secret }, 201);
  });
}

/** PATCH /api/partner/webhooks/{endpointId}: a new address, other event types, on or off. */
export function handleUpdateEndpoint(request: Request, endpointId: string): Promise<Response> {
  return asOwner(request, true, async (partnerId) => {
    if (!isUuid(endpointId)) return notFound("endpoint");
    const parsed = parseEndpointInput(await readBody(request), "update");
    if (!parsed.ok) return invalidEndpoint(parsed.violations);
    const updated = await updateEndpoint(partnerId, endpointId, parsed.input);
    if (!updated) return notFound("endpoint");
    log.info("partner.webhook_updated", {
      partner_id: partnerId,
      endpoint_id: endpointId,
      fields: Object.keys(parsed.input),
    });
    return json(toEndpointWire(updated));
  });
}

/** DELETE /api/partner/webhooks/{endpointId}: its deliveries go with it. */
export function handleDeleteEndpoint(request: Request, endpointId: string): Promise<Response> {
  return asOwner(request, true, async (partnerId) => {
    if (!isUuid(endpointId)) return notFound("endpoint");
    if ((await deleteEndpoint(partnerId, endpointId)) === false) return notFound("endpoint");
    log.info("partner.webhook_deleted", { partner_id: partnerId, endpoint_id: endpointId });
    return new Response(null, { status: 204, headers: NO_STORE });
  });
}

/**
 * POST /api/partner/webhooks/{endpointId}/rotate-secret: the new secret is
 * shown once; deliveries are signed with the old one too for 24 hours.
 */
export function handleRotateEndpointSecret(
  request: Request,
  endpointId: string,
): Promise<Response> {
  return asOwner(request, true, async (partnerId) => {
    if (!isUuid(endpointId)) return notFound("endpoint");
    const rotated = await rotateSecret(partnerId, endpointId);
    if (!rotated) return notFound("endpoint");
    log.info("partner.webhook_secret_rotated", { partner_id: partnerId, endpoint_id: endpointId });
    return json({
      secret: rotated.secret,
      previousSecretExpiresAt: rotated.previousSecretExpiresAt.toISOString(),
    });
  });
}

/** `?limit=`: a whole number from 1 to the most; the default when absent. */
function deliveryLimit(request: Request): number | null {
  const raw = new URL(request.url).searchParams.get("limit");
  if (raw === null) return DEFAULT_DELIVERY_LIMIT;
  if (!/^\d{1,3}$/.test(raw)) return null;
  const limit = Number(raw);
  return limit >= 1 && limit <= MAX_DELIVERY_LIMIT ? limit : null;
}

/** GET /api/partner/webhooks/{endpointId}/deliveries: the newest first, each with its attempts. */
export function handleListDeliveries(request: Request, endpointId: string): Promise<Response> {
  return asOwner(request, false, async (partnerId) => {
    if (!isUuid(endpointId)) return notFound("endpoint");
    const limit = deliveryLimit(request);
    if (limit === null) {
      return refuse(
        400,
        "invalid_request",
        `limit must be a whole number from 1 to ${MAX_DELIVERY_LIMIT}`,
      );
    }
    const deliveries = await listDeliveries(partnerId, endpointId, limit);
    if (!deliveries) return notFound("endpoint");
    return json(deliveries.map(toDeliveryWire));
  });
}

/** POST /api/partner/webhooks/{endpointId}/test: a `webhook.test` event, to this endpoint only. */
export function handleSendTestEvent(request: Request, endpointId: string): Promise<Response> {
  return asOwner(request, true, async (partnerId) => {
    if (!isUuid(endpointId)) return notFound("endpoint");
    const sent = await sendTestEvent(partnerId, endpointId);
    if (!sent) return notFound("endpoint");
    log.info("partner.webhook_test_sent", { partner_id: partnerId, endpoint_id: endpointId });
    return json(sent, 202);
  });
}

/**
 * POST /api/partner/webhooks/{endpointId}/deliveries/{deliveryId}/replay: the
 * same event (same `webhook-id`) is delivered again, whatever its state.
 */
export function handleReplayDelivery(
  request: Request,
  endpointId: string,
  deliveryId: string,
): Promise<Response> {
  return asOwner(request, true, async (partnerId) => {
    if (!isUuid(endpointId) || !isUuid(deliveryId)) return notFound("delivery");
    // The delivery must be one of this endpoint's, and the endpoint the partner's.
    const owned = await db().webhookDelivery.findFirst({
      where: { id: deliveryId, endpointId, endpoint: { partnerId } },
      select: { id: true },
    });
    if (!owned) return notFound("delivery");
    const replayed = await replayDelivery(partnerId, deliveryId);
    if (!replayed) return notFound("delivery");
    log.info("partner.webhook_replayed", { partner_id: partnerId, delivery_id: deliveryId });
    return json(replayed, 202);
  });
}
