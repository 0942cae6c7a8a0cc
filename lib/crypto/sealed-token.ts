import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { getEnv } from "../env";

/**
 * Sealed tokens: a few bytes of the service's own state handed to a client
 * and taken back from it unchanged (a paging position), encrypted and
 * authenticated with AES-256-GCM under a key derived from SECRET_KEY with
 * HKDF-SHA256 (RFC 5869), one key per purpose. The client learns nothing of
 * what the token holds, cannot make or change one, and cannot use one outside
 * the context it was sealed for (the context is the cipher's associated
 * data: a token sealed for one partner does not open for another). A fresh
 * random nonce each time: the same value sealed twice gives two tokens.
 *
 * While SECRET_KEY_PREVIOUS is set (a rotation, docs/operations.md), tokens
 * sealed under it still open.
 */

export const SEALED_TOKEN_PURPOSES = ["audit-cursor", "webhook-secret"] as const;
export type SealedTokenPurpose = (typeof SEALED_TOKEN_PURPOSES)[number];

const HKDF_SALT = "bank-connect/sealed-token/v1";
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

const keys = new Map<string, Buffer>();

function keyFor(secretKey: string, purpose: SealedTokenPurpose): Buffer {
  const cacheKey = `${purpose}\u0000${secretKey}`;
  let key = keys.get(cacheKey);
  if (!key) {
    key = Buffer.from(
      hkdfSync("sha256", secretKey, HKDF_SALT, `sealed-token:${purpose}`, KEY_BYTES),
    );
    if (keys.size >= SEALED_TOKEN_PURPOSES.length * 4) keys.clear();
    keys.set(cacheKey, key);
  }
  return key;
}

const associatedData = (purpose: SealedTokenPurpose, context: string) =>
  Buffer.from(`${purpose}\u0000${context}`, "utf8");

/** `plaintext` sealed for `context`, as base64url text. */
export function sealToken(
  purpose: SealedTokenPurpose,
  plaintext: Uint8Array,
  context: string,
  secretKey: string = getEnv().secretKey,
): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyFor(secretKey, purpose), nonce);
  cipher.setAAD(associatedData(purpose, context));
  const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString("base64url");
}

/**
 * What `token` holds, if it was sealed for this purpose and context under the
 * current or the previous secret and is exactly `plaintextBytes` long; null
 * for anything else (changed, cut, made up, another context's).
 */
export function openToken(
  purpose: SealedTokenPurpose,
  token: string,
  context: string,
  plaintextBytes: number,
  secrets: { secretKey: string; previousSecretKey?: string } = getEnv(),
): Buffer | null {
  const length = NONCE_BYTES + plaintextBytes + TAG_BYTES;
  if (!/^[A-Za-z0-9_-]+$/.test(token) || token.length !== Math.ceil((length * 4) / 3)) return null;
  const bytes = Buffer.from(token, "base64url");
  // Only the canonical spelling: no second text for the same bytes.
  if (bytes.length !== length || bytes.toString("base64url") !== token) return null;
  const nonce = bytes.subarray(0, NONCE_BYTES);
  const sealed = bytes.subarray(NONCE_BYTES, length - TAG_BYTES);
  const tag = bytes.subarray(length - TAG_BYTES);
  for (const secretKey of [secrets.secretKey, secrets.previousSecretKey]) {
    if (!secretKey) continue;
    const decipher = createDecipheriv("aes-256-gcm", keyFor(secretKey, purpose), nonce, {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(associatedData(purpose, context));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(sealed), decipher.final()]);
    } catch {
      // The tag does not match under this secret.
    }
  }
  return null;
}
