import { validPublicKey } from "../flow/key-setup";
import { parsePasskeyWrappedKey, serializePasskeyWrappedKey } from "../keys/passkey-key";

/**
 * The user's private key as a passkey holds it (docs/key-model.md): wrapped
 * in the browser with a key derived from the passkey's PRF output, which never
 * reaches the service. The service checks only the record's shape and which
 * public key it names; it cannot open it, and keeps it only for the passkey
 * whose PRF output wrapped it.
 */

/** A PKCS#8 P-256 key is about 140 bytes; anything near this is not one. */
const MAX_WRAPPED_KEY_CHARS = 2048;

/**
 * The wrapped key in the stored form (JSON text, fields in their documented
 * order), from a request's JSON text or object; null when it is not one.
 */
export function readWrappedKey(value: unknown): string | null {
  if (typeof value === "string" && value.length > MAX_WRAPPED_KEY_CHARS) return null;
  try {
    const wrapped = parsePasskeyWrappedKey(value);
    if (!validPublicKey(wrapped.publicKey)) return null;
    const text = serializePasskeyWrappedKey(wrapped);
    return text.length <= MAX_WRAPPED_KEY_CHARS ? text : null;
  } catch {
    return null;
  }
}

/** The public key a stored wrapped key names, or null. */
export function wrappedPublicKey(stored: string | null): string | null {
  if (stored === null) return null;
  try {
    return parsePasskeyWrappedKey(stored).publicKey;
  } catch {
    return null;
  }
}

/** The stored wrapped key holds `publicKey`'s private half (as far as the service can tell). */
export const wrapsKey = (stored: string | null, publicKey: string | null): boolean =>
  publicKey !== null && wrappedPublicKey(stored) === publicKey;
