import { createHmac, randomBytes } from "node:crypto";
import { openToken, sealToken } from "../crypto/sealed-token";

/**
 * Webhook signatures as the Standard Webhooks specification describes them
 * (docs/events.md#verifying-a-signature), so a partner verifies with an
 * existing library in any language:
 *
 * - the secret is `whsec_` and the base64 of 32 random bytes; the bytes are
 *   the HMAC key;
 * - `webhook-id` is the event's id (every retry and replay keeps it: the
 *   partner's idempotency key), `webhook-timestamp` the attempt's Unix time
 *   in seconds;
 * - `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of
 *   `{id}.{timestamp}.{body}`; while a rotated-out secret is still valid (24
 *   hours) the old and the new secret both sign, space-separated, so a
 *   receiver holding either accepts the delivery.
 *
 * The key bytes are stored sealed under SECRET_KEY (lib/crypto/sealed-token.ts),
 * bound to the endpoint's id: a sealed secret copied to another endpoint does
 * not open.
 */

export const WEBHOOK_SECRET_PREFIX = "whsec_";
export const WEBHOOK_SECRET_BYTES = 32;
/** How long the secret before a rotation still signs. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Fresh key bytes for an endpoint's signing secret. */
export function newSecretBytes(): Buffer {
  return randomBytes(WEBHOOK_SECRET_BYTES);
}

/** The secret as the partner is shown it once: `whsec_<base64>`. */
export function formatSecret(bytes: Uint8Array): string {
  return `${WEBHOOK_SECRET_PREFIX}${Buffer.from(bytes).toString("base64")}`;
}

export function sealSecret(endpointId: string, bytes: Uint8Array, secretKey?: string): string {
  return sealToken("webhook-secret", bytes, `webhook-endpoint:${endpointId}`, secretKey);
}

/** The key bytes of a sealed secret, or null when no current or previous SECRET_KEY opens it. */
export function openSecret(
  endpointId: string,
  sealed: string,
  secrets?: { secretKey: string; previousSecretKey?: string },
): Buffer | null {
  return openToken(
    "webhook-secret",
    sealed,
    `webhook-endpoint:${endpointId}`,
    WEBHOOK_SECRET_BYTES,
    secrets,
  );
}

/** One signature: `v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`. */
export function signatureOf(key: Uint8Array, id: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest();
  return `v1,${mac.toString("base64")}`;
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * The three Standard Webhooks headers for `body`, signed by every key given
 * (the current secret first, then one still valid after a rotation).
 */
export function signedHeaders(
  keys: readonly Uint8Array[],
  id: string,
  body: string,
  at: Date = new Date(),
): SignedHeaders {
  if (keys.length === 0) throw new Error("a webhook is signed by at least one secret");
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": keys.map((key) => signatureOf(key, id, timestamp, body)).join(" "),
  };
}

/** What signs an endpoint's deliveries now: its secret, and the previous one until it expires. */
export function signingKeys(
  endpoint: {
    id: string;
    secretSealed: string;
    previousSecretSealed: string | null;
    previousSecretExpiresAt: Date | null;
  },
  now: Date = new Date(),
): Buffer[] {
  const current = openSecret(endpoint.id, endpoint.secretSealed);
  if (!current) throw new Error("the endpoint's signing secret does not open under SECRET_KEY");
  const keys = [current];
  if (
    endpoint.previousSecretSealed &&
    endpoint.previousSecretExpiresAt &&
    endpoint.previousSecretExpiresAt > now
  ) {
    const previous = openSecret(endpoint.id, endpoint.previousSecretSealed);
    if (previous) keys.push(previous);
  }
  return keys;
}
