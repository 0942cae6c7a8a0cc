import { fromBase64, publicKeyOf, toBase64, type UserKeyPair } from "./browser-key";

/**
 * The user's key held by a passkey (docs/key-model.md). The authenticator's
 * PRF extension gives the same 32 secret bytes every time this passkey is used
 * with the service's fixed PRF input; those bytes never leave the browser. A
 * wrapping key is derived from them (HKDF-SHA256, salt
 * "bank-connect/passkey-wrap/v1", info = the raw public key) and seals the
 * PKCS#8 private key with AES-256-GCM, the public key bound as additional
 * data. The service stores the wrapped key so a new device of the same person
 * can fetch it, and cannot open it: only the passkey's PRF output can.
 * Runs in browsers (and in Node for tests): Web Crypto only.
 */

export const PASSKEY_KEY_VERSION = 1;

/** The wrapped key as stored by the service and in this browser (JSON text on the wire). */
export interface PasskeyWrappedKey {
  version: typeof PASSKEY_KEY_VERSION;
  /** Raw P-256 point, standard base64: the key the service has registered. */
  publicKey: string;
  /** 12 bytes, standard base64. */
  iv: string;
  /** The PKCS#8 private key under AES-256-GCM (ciphertext ‖ tag), standard base64. */
  ciphertext: string;
}

export type PasskeyKeyFailure = "wrong_passkey" | "damaged";

/**
 * The wrapped key could not be opened: `wrong_passkey` when the PRF output
 * does not open it (another passkey, or a wrapped key of another public key),
 * `damaged` when it is not a wrapped key or what it holds is not the key it
 * names.
 */
export class PasskeyKeyError extends Error {
  constructor(readonly reason: PasskeyKeyFailure) {
    super(`passkey key: ${reason}`);
    this.name = "PasskeyKeyError";
  }
}

const WRAP_SALT = new TextEncoder().encode("bank-connect/passkey-wrap/v1");
const additionalData = (publicKey: string) =>
  new TextEncoder().encode(`bank-connect-passkey-key/${PASSKEY_KEY_VERSION}|${publicKey}`);

/** PRF outputs are 32 bytes (WebAuthn's prf extension, from CTAP hmac-secret). */
const PRF_OUTPUT_BYTES = 32;

const asBytes = (source: BufferSource): Uint8Array<ArrayBuffer> => {
  const view =
    source instanceof ArrayBuffer
      ? new Uint8Array(source)
      : new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  return new Uint8Array(view);
};

async function wrappingKey(prfOutput: BufferSource, publicKey: string): Promise<CryptoKey> {
  const secret = asBytes(prfOutput);
  if (secret.byteLength !== PRF_OUTPUT_BYTES) throw new PasskeyKeyError("wrong_passkey");
  const material = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: WRAP_SALT, info: fromBase64(publicKey) },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** Seals `pair`'s private key to the passkey whose PRF output is `prfOutput`. */
export async function wrapKeyWithPasskey(
  pair: UserKeyPair,
  prfOutput: BufferSource,
): Promise<PasskeyWrappedKey> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: additionalData(pair.publicKey) },
    await wrappingKey(prfOutput, pair.publicKey),
    fromBase64(pair.privateKey),
  );
  return {
    version: PASSKEY_KEY_VERSION,
    publicKey: pair.publicKey,
    iv: toBase64(iv),
    ciphertext: toBase64(ciphertext),
  };
}

/**
 * Opens a wrapped key with the passkey's PRF output. The public key is then
 * derived from the private key and must be the one the record names: a
 * record cannot pass off one key as another.
 */
export async function unwrapKeyWithPasskey(
  wrapped: PasskeyWrappedKey,
  prfOutput: BufferSource,
): Promise<UserKeyPair> {
  const key = await wrappingKey(prfOutput, wrapped.publicKey);
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt(
      {
        name: "AES-GCM",
        iv: fromBase64(wrapped.iv),
        additionalData: additionalData(wrapped.publicKey),
      },
      key,
      fromBase64(wrapped.ciphertext),
    );
  } catch {
    // AES-GCM cannot tell another passkey from an edited record; another passkey is the likely one.
    throw new PasskeyKeyError("wrong_passkey");
  }
  const privateKey = toBase64(plain);
  const derived = await publicKeyOf(privateKey).catch(() => null);
  if (derived !== wrapped.publicKey) throw new PasskeyKeyError("damaged");
  return { privateKey, publicKey: wrapped.publicKey };
}

const isBase64 = (value: unknown, bytes?: number): value is string => {
  if (typeof value !== "string" || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return false;
  try {
    const length = atob(value).length;
    return bytes === undefined ? length > 0 : length === bytes;
  } catch {
    return false;
  }
};

/** Checks the shape of a wrapped key (parsed or as JSON text); throws PasskeyKeyError("damaged"). */
export function parsePasskeyWrappedKey(value: unknown): PasskeyWrappedKey {
  let record: unknown = value;
  if (typeof value === "string") {
    try {
      record = JSON.parse(value);
    } catch {
      throw new PasskeyKeyError("damaged");
    }
  }
  const candidate = record as Partial<PasskeyWrappedKey> | null;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    candidate.version !== PASSKEY_KEY_VERSION ||
    !isBase64(candidate.publicKey, 65) ||
    !isBase64(candidate.iv, 12) ||
    !isBase64(candidate.ciphertext)
  ) {
    throw new PasskeyKeyError("damaged");
  }
  return {
    version: PASSKEY_KEY_VERSION,
    publicKey: candidate.publicKey,
    iv: candidate.iv,
    ciphertext: candidate.ciphertext,
  };
}

/** The JSON text the service stores: the fields in the documented order. */
export const serializePasskeyWrappedKey = (wrapped: PasskeyWrappedKey): string =>
  JSON.stringify({
    version: wrapped.version,
    publicKey: wrapped.publicKey,
    iv: wrapped.iv,
    ciphertext: wrapped.ciphertext,
  });
