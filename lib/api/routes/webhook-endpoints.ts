import { z } from "zod";
import {
  NewWebhookEndpointWire,
  QueuedWebhookDeliveryWire,
  RotatedWebhookSecretWire,
  WebhookDeliveryWire,
  WebhookEndpointBody,
  WebhookEndpointWire,
} from "../../partners/webhook-wire";
import * as examples from "../openapi-examples";
import { body, owner } from "./partners";
import { error, json, noBody, param, pathId } from "./shared";

/** The partner's webhook endpoints, managed by its owner in the dashboard (/docs/events). */

const endpointId = z.object({ endpointId: pathId("The endpoint's id") });
const endpoint = { requestParams: { path: endpointId } };
const notFound = error("No such endpoint (or not this partner's)", "not_found");
const refused = error(
  "A field refused: the address (https, public) or the event types",
  "invalid_webhook_endpoint",
);

export const webhookEndpointPaths = {
  "/api/partner/webhooks": {
    get: owner("The partner's webhook endpoints", {
      "200": json(z.array(WebhookEndpointWire), [examples.webhookEndpointExample]),
    }),
    post: owner(
      "Add an endpoint; its signing secret is shown once",
      {
        "201": json(NewWebhookEndpointWire, examples.newWebhookEndpointExample, "Created"),
        "400": refused,
        "409": error("At most 10 endpoints per partner", "too_many_endpoints"),
      },
      body(WebhookEndpointBody, examples.webhookEndpointBodyExample),
    ),
  },
  "/api/partner/webhooks/{endpointId}": {
    patch: owner(
      "Change the address or event types, or turn the endpoint off and on",
      {
        "200": json(WebhookEndpointWire, examples.webhookEndpointExample),
        "400": refused,
        "404": notFound,
      },
      { ...endpoint, ...body(WebhookEndpointBody, { enabled: false }) },
    ),
    delete: owner(
      "Delete the endpoint and its deliveries",
      { "204": noBody("Deleted"), "404": notFound },
      endpoint,
    ),
  },
  "/api/partner/webhooks/{endpointId}/rotate-secret": {
    post: owner(
      "A new signing secret; the previous one signs 24 hours more",
      {
        "200": json(RotatedWebhookSecretWire, examples.rotatedWebhookSecretExample),
        "404": notFound,
      },
      endpoint,
    ),
  },
  "/api/partner/webhooks/{endpointId}/deliveries": {
    get: owner(
      "The endpoint's recent deliveries, newest first, each with its attempts",
      {
        "200": json(z.array(WebhookDeliveryWire), [examples.webhookDeliveryExample]),
        "400": error("limit out of range", "invalid_request"),
        "404": notFound,
      },
      {
        requestParams: {
          path: endpointId,
          query: z.object({
            limit: param(z.string().optional(), "How many, from 1 to 100; 20 when absent"),
          }),
        },
      },
    ),
  },
  "/api/partner/webhooks/{endpointId}/test": {
    post: owner(
      "Send a `webhook.test` event to this endpoint",
      {
        "202": json(QueuedWebhookDeliveryWire, examples.queuedWebhookDeliveryExample, "Queued"),
        "404": notFound,
      },
      endpoint,
    ),
  },
  "/api/partner/webhooks/{endpointId}/deliveries/{deliveryId}/replay": {
    post: owner(
      "Deliver the same event again (same `webhook-id`)",
      {
        "202": json(QueuedWebhookDeliveryWire, examples.queuedWebhookDeliveryExample, "Queued"),
        "404": error("No such delivery of this endpoint", "not_found"),
      },
      {
        requestParams: {
          path: endpointId.extend({ deliveryId: pathId("The delivery's id") }),
        },
      },
    ),
  },
};
