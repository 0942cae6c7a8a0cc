import { createHmac, hkdfSync } from "node:crypto";
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
  "bank-state",
  "account-identity",
  "psu-id",
  "session-csrf",
  "sign-out",
  "recipient-key-challenge",
  "sign-in-limit",
] as const;

export type KeyedHashPurpose = (typeof KEYED_HASH_PURPOSES)[number];

/** Versioned so that a future change of derivation cannot collide with this one. */
const HKDF_SALT = "bank-connect/keyed-hash/v1";
const SUB_KEY_BYTES = 32;

const subKeys = new Map<KeyedHashPurpose, { secretKey: string; key: Buffer }>();

/** The HKDF-SHA256 sub-key for one purpose (cached per purpose and secret key). */
function deriveSubKey(secretKey: string, purpose: KeyedHashPurpose): Buffer {
  const cached = subKeys.get(purpose);
  if (cached && cached.secretKey === secretKey) return cached.key;
  const key = Buffer.from(
    hkdfSync("sha256", secretKey, HKDF_SALT, `keyed-hash:${purpose}`, SUB_KEY_BYTES),
  );
  subKeys.set(purpose, { secretKey, key });
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
