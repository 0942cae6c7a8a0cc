import { createHash, timingSafeEqual } from "node:crypto";

/** What you stored when you built the authorize URL, looked up by the relay's `state`. */
export interface PendingLogin {
  state: string;
  verifier: string;
}

/**
 * Check the form-posted relay (application/x-www-form-urlencoded body of the
 * POST to your redirect_uri). Your session cookie is usually NOT on this
 * request (a cross-site POST does not carry SameSite=Lax cookies), so find the
 * pending login by `state` in your own store, then verify it.
 */
export function checkRelay(
  body: URLSearchParams,
  pending: PendingLogin | undefined,
  issuer: string, // the `issuer` of the discovery document
): { code: string; verifier: string; privateKey: string } {
  const field = (name: string) => body.get(name) ?? "";
  // 1. state, in constant time (hash both sides so the lengths match).
  if (!pending || !sameSecret(field("state"), pending.state)) throw new Error("state_mismatch");
  // 2. iss (RFC 9207) must be the discovery issuer.
  if (!sameSecret(field("iss"), issuer)) throw new Error("issuer_mismatch");
  // 3. Only now look at errors: access_denied, temporarily_unavailable, …
  if (field("error")) throw new Error(`${field("error")}: ${field("error_description")}`);
  // 4. The code; privateKey is "" when you installed a recipient key.
  if (!field("code")) throw new Error("missing_code");
  return { code: field("code"), verifier: pending.verifier, privateKey: field("privateKey") };
}

function sameSecret(received: string, expected: string): boolean {
  const a = createHash("sha256").update(received).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b) && received.length === expected.length && expected !== "";
}
