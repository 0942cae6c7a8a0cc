import { createHash } from "node:crypto";
import { timingSafeEqualString } from "../crypto/constant-time";

/** RFC 7636 §4.1: 43–128 characters of the unreserved set. */
const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** A base64url SHA-256 without padding is exactly 43 characters. */
const S256_CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function isWellFormedVerifier(verifier: string): boolean {
  return VERIFIER_PATTERN.test(verifier);
}

export function isWellFormedS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE_PATTERN.test(challenge);
}

/** RFC 7636 §4.2: BASE64URL(SHA256(ASCII(code_verifier))). */
export function toS256Challenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** RFC 7636 §4.6, compared in constant time. */
export function verifiesS256(verifier: string, challenge: string): boolean {
  if (!isWellFormedVerifier(verifier) || !isWellFormedS256Challenge(challenge)) return false;
  return timingSafeEqualString(toS256Challenge(verifier), challenge);
}
