/**
 * The user's encryption key in the browser (docs/key-model.md). Generated
 * with Web Crypto as a P-256 pair in the envelope scheme's formats (PKCS#8
 * private key, raw public point, both standard base64). Only the public key
 * is ever sent to the service. Runs in browsers (and in Node for tests,
 * which have Web Crypto but no IndexedDB).
 */

export const PBKDF2_ITERATIONS = 600_000;
const SCHEME = "ecdh-p256-hkdf-aes-256-gcm";

export interface UserKeyPair {
  /** base64 PKCS#8. */
  privateKey: string;
  /** base64 raw uncompressed point, 65 bytes. */
  publicKey: string;
}

/**
 * How browsers stored the key before the encrypted backup existed: still
 * read (and unlocked with the same passphrase), never written any more.
 */
export interface WrappedKey {
  version: 1;
  publicKey: string;
  salt: string;
  iv: string;
  iterations: number;
  ciphertext: string;
}

export class WrongPassphraseError extends Error {
  constructor() {
    super("wrong passphrase");
    this.name = "WrongPassphraseError";
  }
}

export class InvalidBackupError extends Error {
  constructor(reason: string) {
    super(`invalid backup: ${reason}`);
    this.name = "InvalidBackupError";
  }
}

export const toBase64 = (bytes: ArrayBuffer | Uint8Array) => {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (const byte of view) binary += String.fromCharCode(byte);
  return btoa(binary);
};

export const fromBase64 = (text: string): Uint8Array<ArrayBuffer> => {
  const binary = atob(text);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
};

const EC = { name: "ECDH", namedCurve: "P-256" } as const;

export async function generateUserKey(): Promise<UserKeyPair> {
  const pair = await crypto.subtle.generateKey(EC, true, ["deriveBits"]);
  return {
    privateKey: toBase64(await crypto.subtle.exportKey("pkcs8", pair.privateKey)),
    publicKey: toBase64(await crypto.subtle.exportKey("raw", pair.publicKey)),
  };
}

/** The raw public point of a PKCS#8 private key (via its JWK x/y). */
export async function publicKeyOf(privateKeyPkcs8: string): Promise<string> {
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("pkcs8", fromBase64(privateKeyPkcs8), EC, true, [
      "deriveBits",
    ]);
  } catch {
    throw new InvalidBackupError("the private key is not a P-256 PKCS#8 key");
  }
  const jwk = await crypto.subtle.exportKey("jwk", key);
  const coordinate = (value: string | undefined) =>
    fromBase64((value ?? "").replace(/-/g, "+").replace(/_/g, "/").padEnd(44, "="));
  const point = new Uint8Array(65);
  point[0] = 0x04;
  point.set(coordinate(jwk.x), 1);
  point.set(coordinate(jwk.y), 33);
  return toBase64(point);
}

/** AES-256-GCM key from a passphrase: PBKDF2-SHA256 with a 16-byte random salt. */
export async function passphraseKey(
  passphrase: string,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
) {
  const material = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(passphrase),
    "PBKDF2",
    false,
    ["deriveKey"],
  );
  return crypto.subtle.deriveKey(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

export async function wrapPrivateKey(
  pair: UserKeyPair,
  passphrase: string,
  iterations = PBKDF2_ITERATIONS,
): Promise<WrappedKey> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const key = await passphraseKey(passphrase, salt, iterations);
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv },
    key,
    fromBase64(pair.privateKey),
  );
  return {
    version: 1,
    publicKey: pair.publicKey,
    salt: toBase64(salt),
    iv: toBase64(iv),
    iterations,
    ciphertext: toBase64(ciphertext),
  };
}

export async function unwrapPrivateKey(
  wrapped: WrappedKey,
  passphrase: string,
): Promise<UserKeyPair> {
  const key = await passphraseKey(passphrase, fromBase64(wrapped.salt), wrapped.iterations);
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: fromBase64(wrapped.iv) },
      key,
      fromBase64(wrapped.ciphertext),
    );
    return { privateKey: toBase64(plain), publicKey: wrapped.publicKey };
  } catch {
    throw new WrongPassphraseError();
  }
}

/**
 * The developer export: the plaintext credentials bundle the partner SDKs'
 * `fromCredentials` reads (apiBaseUrl, apiKey, encryptionKey.privateKey).
 * Never the backup: it holds the private key in the clear.
 */
export function toCredentialsBundle(input: {
  issuer: string;
  user: string;
  pair: UserKeyPair;
  now?: Date;
}) {
  return {
    service: "Bank Connect",
    warning:
      "This file holds a private key in plain form. Anyone with it can read the bank data sealed to it. Keep it out of shared folders and source control.",
    apiBaseUrl: input.issuer,
    user: input.user,
    exportedAt: (input.now ?? new Date()).toISOString(),
    apiKey: "",
    encryptionKey: {
      scheme: SCHEME,
      curve: "P-256",
      privateKeyFormat: "pkcs8-base64",
      privateKey: input.pair.privateKey,
      publicKey: input.pair.publicKey,
      envelope: {
        layout: "version(1) | ephemeralPublicKeyRaw(65) | nonce(12) | tag(16) | ciphertext(N)",
        hkdf: { hash: "SHA-256", saltHex: "00".repeat(32), info: "bank.core.ci/zk/v1" },
        aead: "AES-256-GCM (96-bit nonce, 128-bit tag); ciphertext||tag for Web Crypto",
      },
    },
  };
}

/**
 * Reads a plaintext credentials bundle (a developer export, or a backup made
 * before backups were encrypted); checks the key is whole.
 */
export async function parseCredentialsBundle(text: string): Promise<UserKeyPair> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidBackupError("not JSON");
  }
  return pairFromCredentials(parsed);
}

export async function pairFromCredentials(parsed: unknown): Promise<UserKeyPair> {
  const encryptionKey = (parsed as { encryptionKey?: Record<string, unknown> } | null)
    ?.encryptionKey;
  const privateKey = encryptionKey?.privateKey ?? encryptionKey?.privateKeyPkcs8B64;
  if (typeof privateKey !== "string" || privateKey === "")
    throw new InvalidBackupError("no private key");
  const publicKey = await publicKeyOf(privateKey);
  if (typeof encryptionKey?.publicKey === "string" && encryptionKey.publicKey !== publicKey) {
    throw new InvalidBackupError("the public key does not belong to the private key");
  }
  return { privateKey, publicKey };
}
