import { createHmac, hkdfSync } from "node:crypto";
import { timingSafeEqualString } from "./constant-time";
import { getEnv } from "../env";

/**
 * Keyed hashes (docs/architecture.md#domain-model, docs/security.md): secrets, keys, codes, PINs and upstream
 * identifiers are stored as HMAC-SHA256, never in plaintext. They are 256-bit
 * random (or, for a PIN, bound to a server secret), so a keyed hash is the
 * right tool and a slow password hash is not: a bare hash of six digits is
 * reversible, an HMAC keyed by the server secret is not.
 *
 * Each purpose gets its own sub-key, derived from SECRET_KEY with HKDF-SHA256
 * (RFC 5869), so a hash made for one purpose never verifies for another.
 *
 * Rotating SECRET_KEY (docs/operations.md): new hashes are always made with
 * the current key; while SECRET_KEY_PREVIOUS is set, a stored hash made with
 * it still verifies (`keyedHashCandidates`, `matchesKeyedHash`), so issued API
 * keys, client secrets and sessions keep working through the rotation.
 */

/** Every purpose a keyed hash is made for; the label is the HKDF `info`. */
export const KEYED_HASH_PURPOSES = [
  "client-secret",
  "api-key",
  "authorization-code",
  "pin",
  "link-token",
  "browser-session",
  "browser-nonce",
  "flow-cookie",
  "uid",
  "upstream-session",
  "transaction-dedupe",
  "transaction-fingerprint",
  "transaction-pending",
  "transaction-match",
  "transaction-amount",
  "bank-state",
  "account-identity",
  "psu-id",
  "session-csrf",
  "account-csrf",
  "sign-out",
  "recipient-key-challenge",
  "key-proof",
  "sign-in-limit",
  "cli-sign-in-code",
  "cli-sign-in-csrf",
] as const;

export type KeyedHashPurpose = (typeof KEYED_HASH_PURPOSES)[number];

/** Versioned so that a future change of derivation cannot collide with this one. */
const HKDF_SALT = "bank-connect/keyed-hash/v1";
const SUB_KEY_BYTES = 32;

const subKeys = new Map<string, Buffer>();

/** The HKDF-SHA256 sub-key for one purpose (cached per purpose and secret key). */
function deriveSubKey(secretKey: string, purpose: KeyedHashPurpose): Buffer {
  const cacheKey = `${purpose}\u0000${secretKey}`;
  let key = subKeys.get(cacheKey);
  if (!key) {
    key = Buffer.from(
      hkdfSync("sha256", secretKey, HKDF_SALT, `keyed-hash:${purpose}`, SUB_KEY_BYTES),
    );
    // At most two secrets live at once; a test switching secrets must not grow this forever.
    if (subKeys.size >= KEYED_HASH_PURPOSES.length * 4) subKeys.clear();
    subKeys.set(cacheKey, key);
  }
  return key;
}

/**
 * HMAC-SHA256 of `value` (UTF-8) under the sub-key for `purpose`, as lower-case
 * hex (64 characters). `secretKey` defaults to the service's SECRET_KEY.
 */
export function keyedHash(
  purpose: KeyedHashPurpose,
  value: string,
  secretKey: string = getEnv().secretKey,
): string {
  return createHmac("sha256", deriveSubKey(secretKey, purpose)).update(value, "utf8").digest("hex");
}

/**
 * Every hash `value` may be stored under: the current secret's first, then the
 * previous secret's while a rotation is under way. For lookups by hash
 * (`WHERE "keyHash" IN (...)`, lib/db/sql.ts `isOneOf`).
 */
export function keyedHashCandidates(
  purpose: KeyedHashPurpose,
  value: string,
  secrets: { secretKey: string; previousSecretKey?: string } = getEnv(),
): string[] {
  const current = keyedHash(purpose, value, secrets.secretKey);
  if (!secrets.previousSecretKey) return [current];
  return [current, keyedHash(purpose, value, secrets.previousSecretKey)];
}

/**
 * Whether `stored` is the keyed hash of `value` under the current or the
 * previous secret. Every candidate is compared, each in constant time, so the
 * answer's timing says nothing about which secret matched or how much did.
 */
export function matchesKeyedHash(
  purpose: KeyedHashPurpose,
  value: string,
  stored: string,
  secrets?: { secretKey: string; previousSecretKey?: string },
): boolean {
  let matched = false;
  for (const candidate of keyedHashCandidates(purpose, value, secrets)) {
    // Every candidate is compared, so the time says nothing about which matched.
    matched = timingSafeEqualString(candidate, stored) || matched;
  }
  return matched;
}
