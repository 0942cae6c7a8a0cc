import { z } from "zod";
import {
  ACCESS_ENDED_REASONS,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from "../webhooks/types";

/**
 * The events partners receive (docs/events.md), as zod schemas: one payload
 * schema per event type, registered for /openapi.json's `webhooks`
 * (OpenAPI 3.1) and read by the /docs/events page, with a description and an
 * example each. The example of each type is checked against its schema by
 * the unit tests.
 */

const uuid = z.string().describe("UUID");
const timestamp = z.string().describe("RFC 3339 date-time, UTC");

const base = {
  client_id: z.string().describe("The client the event is for"),
  user: z
    .string()
    .describe("The subject of the client's key: the `user` field of the token response"),
};
const connection = {
  connection_id: uuid.describe("The connection (`sessionId` in the data API)"),
  account_ids: z.array(uuid).describe("The connection's accounts, as GET /api/accounts lists them"),
};
const validUntil = {
  valid_until: timestamp.describe("When the bank consent ends (after a renewal: the new end)"),
};

const DATA = {
  "access.granted": z.object(base),
  "access.ended": z.object({
    ...base,
    reason: z
      .enum(ACCESS_ENDED_REASONS)
      .describe(
        "person: ended at My access; start_over: the person replaced their key; account_deleted: the person deleted everything; partner_revoked: POST /oauth/revoke; code_replay: a code was used twice",
      ),
  }),
  "connection.history_ready": z.object({ ...base, ...connection }),
  "connection.expiring": z.object({ ...base, ...connection, ...validUntil }),
  "connection.expired": z.object({ ...base, ...connection, ...validUntil }),
  "connection.withdrawn": z.object({ ...base, ...connection }),
  "connection.renewed": z.object({ ...base, ...connection, ...validUntil }),
} satisfies Record<WebhookEventType, z.ZodObject>;

/** What each type means, for the OpenAPI document and the events page. */
const SUMMARIES: Record<WebhookEventType, { summary: string; description: string }> = {
  "access.granted": {
    summary: "The client got a key for the person",
    description:
      "Sent when the client exchanged an authorization code for a key at POST /oauth/token.",
  },
  "access.ended": {
    summary: "The client's access to the person ended",
    description:
      "Sent once per client and person when the client has no other live key for that person; `reason` says why.",
  },
  "connection.history_ready": {
    summary: "A connection's first history is complete",
    description:
      "The last account still waiting for its first history got it: its transactions no longer answer 503.",
  },
  "connection.expiring": {
    summary: "A bank consent ends soon",
    description:
      "Sent once per consent, a set number of days (7 by default) before `valid_until`, when the person is reminded too.",
  },
  "connection.expired": {
    summary: "A bank consent ended",
    description:
      "Sent once per consent, when a sync or the hourly check finds it past `valid_until` or expired at the bank.",
  },
  "connection.withdrawn": {
    summary: "A bank consent was withdrawn",
    description:
      "A sync found the consent revoked or closed at the bank; its accounts answer consent_withdrawn from then on.",
  },
  "connection.renewed": {
    summary: "A bank consent was renewed",
    description:
      "The person renewed the consent (renew_connection, or from My access): the same connection and account ids, a new `valid_until`.",
  },
};

const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join("");

const EXAMPLE_IDS = {
  client_id: "obc_3kq8Xw2mVb",
  user: "the user of the token response",
  connection_id: "8f0c2d4e-5b7a-4c1e-9d3f-2a6b8c0e1f47",
  account_ids: ["0b5e7c9a-1d3f-4a6b-8c0e-2f4a6b8d0c1e"],
};

function exampleOf(type: WebhookEventType) {
  const shape = DATA[type].shape as Record<string, unknown>;
  const data: Record<string, unknown> = {
    client_id: EXAMPLE_IDS.client_id,
    user: EXAMPLE_IDS.user,
  };
  if ("connection_id" in shape) {
    data.connection_id = EXAMPLE_IDS.connection_id;
    data.account_ids = EXAMPLE_IDS.account_ids;
  }
  if ("valid_until" in shape) data.valid_until = "2026-12-04T09:12:00.000Z";
  if ("reason" in shape) data.reason = "person";
  return { type, timestamp: "2026-11-27T14:00:00.000Z", data };
}

export interface WebhookEventDoc {
  type: WebhookEventType;
  /** The payload's schema id in the OpenAPI document's components. */
  schemaId: string;
  schema: z.ZodObject;
  summary: string;
  description: string;
  /** The data fields beyond `client_id` and `user`. */
  fields: string[];
  example: ReturnType<typeof exampleOf>;
}

/** One entry per event type, in the order of WEBHOOK_EVENT_TYPES. */
export const WEBHOOK_EVENT_DOCS: readonly WebhookEventDoc[] = WEBHOOK_EVENT_TYPES.map((type) => {
  const schemaId = `${pascal(type)}Event`;
  const schema = z
    .object({
      type: z.literal(type),
      timestamp: timestamp.describe("When it happened; every retry keeps it"),
      data: DATA[type],
    })
    .meta({ id: schemaId, description: SUMMARIES[type].summary });
  return {
    type,
    schemaId,
    schema,
    ...SUMMARIES[type],
    fields: Object.keys(DATA[type].shape).filter((field) => !(field in base)),
    example: exampleOf(type),
  };
});
