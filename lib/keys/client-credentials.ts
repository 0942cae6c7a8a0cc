import { keyedHash, matchesKeyedHash } from "../crypto/keyed-hash";
import { randomAlphanumeric, randomToken, SECRET_BYTES } from "../crypto/random";

/**
 * Connect client ids and secrets (docs/architecture.md#domain-model, docs/protocol.md#client-authentication).
 * Secrets are 256-bit random, shown once, and stored only as a keyed hash
 * (docs/security.md); they are compared in constant time.
 */

export const CLIENT_ID_PREFIX = "obc_";

/** Whether a presented client id can name a stored client at all (PostgreSQL text holds no NUL). */
export const canNameClient = (clientId: string) =>
  clientId.length <= 128 && !clientId.includes("\u0000");
export const CLIENT_SECRET_PREFIX = "obs_";
const CLIENT_ID_RANDOM_LENGTH = 24;

/** The secret before a rotation stays valid for 24 hours (docs/protocol.md#client-authentication). */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * A well-formed `obc_` id: the prefix and 8–60 characters of [A-Za-z0-9_-].
 * Generated ids use 24 alphanumerics; fixed ids such as the demo client's
 * (`obc_demo_budget_app`) fit too.
 */
const OBC_ID_PATTERN = /^obc_[A-Za-z0-9_-]{8,60}$/;
/** First-generation ids (see docs/architecture.md#domain-model: older ids without the prefix are allowed). */
const LEGACY_ID_PATTERN = /^[A-Za-z0-9_.-]{3,64}$/;

/** A fresh client id: `obc_` + 24 random alphanumerics (~143 bits). */
export function generateClientId(): string {
  return CLIENT_ID_PREFIX + randomAlphanumeric(CLIENT_ID_RANDOM_LENGTH);
}

/** A fresh client secret: `obs_` + base64url of 256 random bits. */
export function generateClientSecret(): string {
  return CLIENT_SECRET_PREFIX + randomToken(SECRET_BYTES);
}

export function isWellFormedObcClientId(id: string): boolean {
  return OBC_ID_PATTERN.test(id);
}

/**
 * Why an administrator-chosen client id is refused, or null when it is fine.
 * An id starting with `obc_` is treated as a new-style client (/docs/flow:
 * response_type becomes required), so it must be a well-formed one.
 */
export function describeClientIdProblem(id: string): string | null {
  if (id.startsWith(CLIENT_ID_PREFIX)) {
    return isWellFormedObcClientId(id)
      ? null
      : "an id starting with obc_ must continue with 8-60 characters of A-Z, a-z, 0-9, _ or -";
  }
  return LEGACY_ID_PATTERN.test(id)
    ? null
    : "a client id must be 3-64 characters of A-Z, a-z, 0-9, _, . or -";
}

/** The stored form of a client secret (keyed hash, purpose "client-secret"). */
export function hashClientSecret(secret: string): string {
  return keyedHash("client-secret", secret);
}

export interface ClientSecretHashes {
  secretHash: string;
  previousSecretHash: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * Per docs/protocol.md#client-authentication, the presented secret is the current one, or the previous one while
 * its 24-hour grace lasts. Both comparisons always run, in constant time.
 */
export function verifyClientSecret(
  client: ClientSecretHashes,
  presented: string,
  now: Date,
): boolean {
  // Each hash is checked under the current and, during a SECRET_KEY rotation, the previous secret.
  const isCurrent = matchesKeyedHash("client-secret", presented, client.secretHash);
  const isPrevious =
    client.previousSecretHash !== null &&
    matchesKeyedHash("client-secret", presented, client.previousSecretHash) &&
    isPreviousSecretInGrace(client, now);
  return isCurrent || isPrevious;
}

function isPreviousSecretInGrace(client: ClientSecretHashes, now: Date): boolean {
  return (
    client.previousSecretExpiresAt !== null &&
    client.previousSecretExpiresAt.getTime() > now.getTime()
  );
}

/** Rotation (docs/protocol.md#client-authentication): the current hash becomes the previous one, valid 24 h from `now`. */
export function toRotatedSecretHashes(
  currentHash: string,
  newSecret: string,
  now: Date,
): ClientSecretHashes & { previousSecretHash: string; previousSecretExpiresAt: Date } {
  return {
    secretHash: hashClientSecret(newSecret),
    previousSecretHash: currentHash,
    previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS),
  };
}
