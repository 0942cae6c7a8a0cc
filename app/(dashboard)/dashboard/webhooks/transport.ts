import type { WebhookDeliveryWire, WebhookEndpointWire } from "@/lib/partners/webhook-wire";
import { send, type Answer, type Endpoint } from "../ui/request";

/**
 * The webhooks section's calls to /api/partner/webhooks: each answers the
 * request's outcome (never throws), so the screens can say what happened.
 */

export type { WebhookDeliveryWire as Delivery, WebhookEndpointWire as WebhookEndpoint };

export interface EndpointValues {
  url: string;
  eventTypes: string[];
}

export type Created = WebhookEndpointWire & { secret: string };
export type Rotated = { secret: string; previousSecretExpiresAt: string | null };

const BASE = "/api/partner/webhooks";
const at = (id: string, tail = "") => `${BASE}/${encodeURIComponent(id)}${tail}`;

export function webhooksApi(endpoint: Endpoint) {
  return {
    list: () => send<WebhookEndpointWire[]>(endpoint, BASE, { method: "GET" }),
    create: (values: EndpointValues) =>
      send<Created>(endpoint, BASE, { method: "POST", json: values }),
    update: (id: string, changes: Partial<EndpointValues> & { enabled?: boolean }) =>
      send<WebhookEndpointWire>(endpoint, at(id), { method: "PATCH", json: changes }),
    remove: (id: string): Promise<Answer> => send(endpoint, at(id), { method: "DELETE" }),
    rotate: (id: string) => send<Rotated>(endpoint, at(id, "/rotate-secret"), { method: "POST" }),
    deliveries: (id: string) =>
      send<WebhookDeliveryWire[]>(endpoint, at(id, "/deliveries"), { method: "GET" }),
    sendTest: (id: string): Promise<Answer> => send(endpoint, at(id, "/test"), { method: "POST" }),
    replay: (id: string, deliveryId: string): Promise<Answer> =>
      send(endpoint, at(id, `/deliveries/${encodeURIComponent(deliveryId)}/replay`), {
        method: "POST",
      }),
  };
}

export type WebhooksApi = ReturnType<typeof webhooksApi>;
