/**
 * The events partners receive (docs/events.md). Each carries ids only: the
 * client, the subject the partner knows (`user` of the token response) and
 * the connection or account ids its key already reads; never bank data,
 * names or addresses.
 */

export const WEBHOOK_EVENT_TYPES = [
  "access.granted",
  "access.ended",
  "connection.history_ready",
  "connection.expiring",
  "connection.expired",
  "connection.withdrawn",
  "connection.renewed",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The test event a partner sends itself from the dashboard; never subscribed to. */
export const WEBHOOK_TEST_EVENT = "webhook.test";

/** Why a partner's access ended (`access.ended`'s `reason`). */
export const ACCESS_ENDED_REASONS = [
  /** The person ended it at My access. */
  "person",
  /** The person started over with a new key: the old data can no longer be read. */
  "start_over",
  /** The person deleted their account and everything in it. */
  "account_deleted",
  /** The partner revoked its key (POST /oauth/revoke). */
  "partner_revoked",
  /** An authorization code was used twice; the key it gave was revoked. */
  "code_replay",
] as const;

export type AccessEndedReason = (typeof ACCESS_ENDED_REASONS)[number];

/** What an event names: always the client and subject, the rest where it applies. */
export interface WebhookEventData {
  client_id: string;
  /** The subject of the key (`user` of the token response). */
  user: string;
  /** The connection (`sessionId` on the wire), for connection.* events. */
  connection_id?: string;
  /** The accounts of that connection the key reads. */
  account_ids?: string[];
  /** access.ended only. */
  reason?: AccessEndedReason;
  /** connection.expiring / connection.expired / connection.renewed: the consent's end. */
  valid_until?: string;
}

/** What the test event names: the endpoint it was sent to. */
export interface WebhookTestEventData {
  endpoint_id: string;
}

/** The body delivered, as the Standard Webhooks specification describes it. */
export interface WebhookPayload {
  type: WebhookEventType | typeof WEBHOOK_TEST_EVENT;
  /** When the event happened (RFC 3339). */
  timestamp: string;
  data: WebhookEventData | WebhookTestEventData;
}
