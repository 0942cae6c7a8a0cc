import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Secrets and keys are compared in constant time, never with `!==`
 * (docs/security.md). Node's timingSafeEqual throws on a length mismatch
 * and so leaks the length through an early exit; comparing fixed-size
 * SHA-256 digests first keeps the work independent of where the inputs differ.
 */
export function timingSafeEqualString(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  const sameDigest = timingSafeEqual(sha256(left), sha256(right));
  return sameDigest && left.length === right.length;
}

function sha256(bytes: Buffer): Buffer {
  return createHash("sha256").update(bytes).digest();
}
