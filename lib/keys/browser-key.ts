/**
 * The user's encryption key in the browser (DESIGN.md §6.3, CONTRACT §8.1,
 * §8.5). Generated with WebCrypto, kept in IndexedDB wrapped by a key derived
 * from a passphrase (PBKDF2-SHA256, 600 000 iterations → AES-256-GCM). Only
 * the public key is ever sent to the service. Runs in browsers (and in Node
 * for tests, which have WebCrypto but no IndexedDB).
 */

export const PBKDF2_ITERATIONS = 600_000;
const SCHEME = "ecdh-p256-hkdf-aes-256-gcm";

export interface UserKeyPair {
  /** base64 PKCS#8 (CONTRACT §8.1). */
  privateKey: string;
  /** base64 raw uncompressed point, 65 bytes. */
  publicKey: string;
}

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

const toBase64 = (bytes: ArrayBuffer | Uint8Array) => {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (const byte of view) binary += String.fromCharCode(byte);
  return btoa(binary);
};

const fromBase64 = (text: string): Uint8Array<ArrayBuffer> => {
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

async function passphraseKey(
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

/** CONTRACT §8.5: the credentials-bundle shape the SDKs' fromCredentials reads. */
export function toBackupBundle(input: {
  issuer: string;
  user: string;
  pair: UserKeyPair;
  now?: Date;
}) {
  return {
    service: "open-banking.io",
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

/** Reads a backup file (or a partner key file of the same shape); checks the key is whole. */
export async function parseBackupBundle(text: string): Promise<UserKeyPair> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidBackupError("not JSON");
  }
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

// IndexedDB storage: one wrapped key per user id.
const DB_NAME = "bank-connect";
const STORE = "keys";

function openKeyStore(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

export async function saveWrappedKey(userId: string, wrapped: WrappedKey): Promise<void> {
  const database = await openKeyStore();
  await new Promise<void>((resolve, reject) => {
    const transaction = database.transaction(STORE, "readwrite");
    transaction.objectStore(STORE).put(wrapped, userId);
    transaction.oncomplete = () => resolve();
    transaction.onerror = () => reject(transaction.error);
  });
  database.close();
}

export async function loadWrappedKey(userId: string): Promise<WrappedKey | null> {
  const database = await openKeyStore();
  const found = await new Promise<WrappedKey | null>((resolve, reject) => {
    const request = database.transaction(STORE).objectStore(STORE).get(userId);
    request.onsuccess = () => resolve((request.result as WrappedKey | undefined) ?? null);
    request.onerror = () => reject(request.error);
  });
  database.close();
  return found;
}
