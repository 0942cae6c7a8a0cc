import { randomBytes } from "node:crypto";

/**
 * Random tokens for secrets, keys, codes and ids (see docs/security.md: secrets are
 * 256-bit random, so a keyed hash is enough to store them).
 */

/** 32 bytes = 256 bits, the size of every secret the service mints. */
export const SECRET_BYTES = 32;

/** base64url (no padding) of `byteLength` random bytes. */
export function randomToken(byteLength: number = SECRET_BYTES): string {
  assertPositiveInteger(byteLength, "byteLength");
  return randomBytes(byteLength).toString("base64url");
}

const ALPHANUMERIC = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** The largest multiple of 62 that fits in a byte: bytes at or above it are re-drawn. */
const UNBIASED_LIMIT = 256 - (256 % ALPHANUMERIC.length);

/**
 * `length` random characters of [0-9A-Za-z], without modulo bias
 * (rejection sampling). Ids built from it select with one double-click.
 */
export function randomAlphanumeric(length: number): string {
  assertPositiveInteger(length, "length");
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length - out.length + 8)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += ALPHANUMERIC[byte % ALPHANUMERIC.length];
      if (out.length === length) break;
    }
  }
  return out;
}

function assertPositiveInteger(value: number, name: string): void {
  if (!Number.isInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer`);
  }
}
