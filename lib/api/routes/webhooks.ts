import { z } from "zod";
import { WEBHOOK_EVENT_DOCS } from "../webhook-events";
import { noBody, param, type Operation } from "./shared";

/**
 * The events the service POSTs to a partner's webhook endpoints
 * (docs/events.md), one per type: the payload's schema from
 * ../webhook-events.ts, the signature headers, and what the endpoint answers.
 */

/** The Standard Webhooks headers every delivery carries. */
const signatureHeaders = z.object({
  "webhook-id": param(
    z.string(),
    "The event's id (msg_…); every retry keeps it: the idempotency key",
  ),
  "webhook-timestamp": param(z.string(), "When this attempt was signed, Unix seconds"),
  "webhook-signature": param(
    z.string(),
    "v1,<base64 HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body}>; space-separated, two during a secret rotation",
  ),
});

export const webhookEvents: Record<string, { post: Operation }> = Object.fromEntries(
  WEBHOOK_EVENT_DOCS.map((event) => [
    event.type,
    {
      post: {
        operationId: `webhook_${event.type.replace(/\W/g, "_")}`,
        summary: event.summary,
        description: `${event.description} Verify the signature before trusting the body; retries keep webhook-id (/docs/events).`,
        requestParams: { header: signatureHeaders },
        requestBody: {
          required: true,
          content: { "application/json": { schema: event.schema, example: event.example } },
        },
        responses: {
          "2XX": noBody("Received: no retry"),
          default: noBody(
            "Anything else, a redirect or no answer within 10 s: retried on schedule",
          ),
        },
      },
    },
  ]),
);
