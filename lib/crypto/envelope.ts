import {
  createCipheriv,
  createDecipheriv,
  createECDH,
  createHash,
  createHmac,
  createPrivateKey,
  ECDH,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from "node:crypto";
import { nativeAgreement, type Agree } from "./p256-agree";

/**
 * The encryption envelope, scheme `ecdh-p256-hkdf-aes-256-gcm`
 * (/docs/envelopes). Every bank value the service stores is sealed to the tenant's
 * P-256 public key; only the holder of the private key (the user, or the
 * partner's recipient key) can open it. The service itself
 * only ever seals; `openJson` exists for tests, the demo and the sandbox.
 */

/** Only version 1 exists (/docs/envelopes). */
const VERSION = 0x01;
const CURVE = "prime256v1";
/** 0x04 ‖ X ‖ Y (/docs/envelopes). */
const RAW_POINT_BYTES = 65;
const UNCOMPRESSED_PREFIX = 0x04;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** Salt = 32 × 0x00, info = "bank.core.ci/zk/v1" (/docs/envelopes). */
const HKDF_SALT = Buffer.alloc(32);
const HKDF_INFO = "bank.core.ci/zk/v1";

/** The fixed offsets of the binary layout (/docs/envelopes). */
export const ENVELOPE_LAYOUT = {
  version: 0,
  ephemeralPoint: 1,
  nonce: 1 + RAW_POINT_BYTES,
  tag: 1 + RAW_POINT_BYTES + NONCE_BYTES,
  ciphertext: 1 + RAW_POINT_BYTES + NONCE_BYTES + TAG_BYTES,
} as const satisfies Record<string, number>;

/** 94: an envelope shorter than its header is never valid (/docs/envelopes). */
export const ENVELOPE_HEADER_BYTES = ENVELOPE_LAYOUT.ciphertext;

export const ENVELOPE_ERROR_MESSAGES = {
  /** The exact wording the SDKs use (/docs/envelopes). */
  invalid_envelope: "Invalid or unsupported envelope",
  invalid_public_key: "Invalid public key: expected a base64 raw uncompressed P-256 point",
  invalid_private_key: "Invalid private key: expected a base64 PKCS#8 P-256 key",
} as const satisfies Record<string, string>;

export type EnvelopeErrorCode = keyof typeof ENVELOPE_ERROR_MESSAGES;

export class EnvelopeError extends Error {
  constructor(
    readonly code: EnvelopeErrorCode,
    options?: { cause?: unknown },
  ) {
    super(ENVELOPE_ERROR_MESSAGES[code], options);
    this.name = "EnvelopeError";
  }
}

/** Canonical standard base64 with padding: what Go's StdEncoding accepts (/docs/envelopes). */
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes strict base64 or returns null (lenient decoders would accept base64url or junk). */
function findStrictBase64(text: string): Buffer | null {
  if (!STRICT_BASE64.test(text)) return null;
  const bytes = Buffer.from(text, "base64");
  // Non-zero padding bits decode but do not round-trip: not canonical.
  return bytes.toString("base64") === text ? bytes : null;
}

function isOnCurve(point: Buffer): boolean {
  try {
    ECDH.convertKey(point, CURVE);
    return true;
  } catch {
    return false;
  }
}

function isRawPoint(point: Buffer): boolean {
  return point.length === RAW_POINT_BYTES && point[0] === UNCOMPRESSED_PREFIX && isOnCurve(point);
}

/** The recipient key is 65 raw bytes, 0x04-prefixed, on P-256 (/docs/envelopes). */
export function parseRawPublicKey(publicKeyRawB64: string): Buffer {
  const point = findStrictBase64(publicKeyRawB64);
  if (!point || !isRawPoint(point)) throw new EnvelopeError("invalid_public_key");
  return point;
}

/** SHA-256 over the 65 raw point bytes, lower-case hex, first 16 characters (/docs/recipient-keys). */
export function recipientKeyFingerprint(publicKeyRawB64: string): string {
  const point = parseRawPublicKey(publicKeyRawB64);
  return createHash("sha256").update(point).digest("hex").slice(0, 16);
}

/** HKDF-SHA256 (RFC 5869) with the salt and info above (/docs/envelopes). */
function deriveKey(sharedSecret: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", sharedSecret, HKDF_SALT, HKDF_INFO, KEY_BYTES));
}

/**
 * What sealing needs of node:crypto (passed in: see sealPlaintexts), and the
 * native key agreement when it is built (lib/crypto/p256-agree.ts).
 */
export interface SealingCrypto {
  createECDH: typeof createECDH;
  createHmac: typeof createHmac;
  createCipheriv: typeof createCipheriv;
  randomBytes: typeof randomBytes;
  agree?: Agree | null;
}

/**
 * Seals each plaintext (compact JSON text) to the raw P-256 point
 * `recipient`, with a fresh ephemeral key pair and nonce for every envelope.
 *
 * Self-contained on purpose: it names nothing outside itself (the crypto
 * module comes as an argument, the constants are written out), because the
 * sealing workers (seal-pool.ts) run it from its own source text. With
 * `agree`, the native agreement makes the batch's ephemeral keys and shared
 * secrets in one call; without it, one ECDH object serves the whole batch:
 * `generateKeys()` replaces its key pair every time, the cheapest way
 * node:crypto offers to a fresh ephemeral key (scripts/bench/ecdh.ts
 * compares them all). HKDF is written out as its two HMACs, and the batch's
 * nonces come from one call for random bytes: both far cheaper than
 * `hkdfSync` and one call per envelope.
 */
export function sealPlaintexts(
  nodeCrypto: SealingCrypto,
  recipient: Uint8Array,
  plaintexts: readonly string[],
): string[] {
  // 0x01 | ephemeral point (65) | nonce (12) | tag (16) | ciphertext; HKDF-SHA-256 with
  // 32 zero bytes of salt and the scheme's info string gives the AES-256-GCM key.
  const salt = Buffer.alloc(32);
  // HKDF-Expand's first block is HMAC(PRK, info ‖ 0x01), and one block is the 32 bytes needed.
  const expandInput = Buffer.from("bank.core.ci/zk/v1\x01", "latin1");
  const nonces = nodeCrypto.randomBytes(12 * plaintexts.length);
  // Each record: the ephemeral point (65 bytes), then the shared secret (32).
  const agreements = nodeCrypto.agree ? nodeCrypto.agree(recipient, plaintexts.length) : null;
  const ephemeral = agreements ? null : nodeCrypto.createECDH("prime256v1");
  const envelopes: string[] = [];
  for (const [index, plaintext] of plaintexts.entries()) {
    let ephemeralPoint: Buffer;
    let shared: Buffer;
    if (ephemeral) {
      ephemeralPoint = ephemeral.generateKeys();
      shared = ephemeral.computeSecret(recipient);
    } else {
      const record = (agreements as Buffer).subarray(97 * index, 97 * index + 97);
      ephemeralPoint = record.subarray(0, 65);
      shared = record.subarray(65);
    }
    // HKDF-SHA-256 (RFC 5869): extract, then expand to one block.
    const pseudorandomKey = nodeCrypto.createHmac("sha256", salt).update(shared).digest();
    const key = nodeCrypto.createHmac("sha256", pseudorandomKey).update(expandInput).digest();
    const nonce = nonces.subarray(12 * index, 12 * index + 12);
    const cipher = nodeCrypto.createCipheriv("aes-256-gcm", key, nonce, { authTagLength: 16 });
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    // The tag sits before the ciphertext.
    envelopes.push(
      Buffer.concat([
        Buffer.of(0x01),
        ephemeralPoint,
        nonce,
        cipher.getAuthTag(),
        ciphertext,
      ]).toString("base64"),
    );
  }
  return envelopes;
}

/** node:crypto, with the native agreement when it is built. */
export function sealingCrypto(): SealingCrypto {
  return { createECDH, createHmac, createCipheriv, randomBytes, agree: nativeAgreement()?.agree };
}

/** The compact JSON text of a payload, as it is sealed. */
export function toPlaintext(payload: unknown): string {
  const plaintext = JSON.stringify(payload);
  if (plaintext === undefined) throw new TypeError("payload is not JSON-serializable");
  return plaintext;
}

/**
 * Seals `payload` (compact `JSON.stringify`) to the raw P-256 point, with a
 * fresh ephemeral key and nonce for every envelope.
 */
export function sealJson(recipientPublicKeyRawB64: string, payload: unknown): string {
  const recipient = parseRawPublicKey(recipientPublicKeyRawB64);
  const [envelope] = sealPlaintexts(sealingCrypto(), recipient, [toPlaintext(payload)]);
  if (envelope === undefined) throw new Error("sealing produced no envelope");
  return envelope;
}

function toPrivateScalar(privateKeyPkcs8B64: string): Buffer {
  const der = findStrictBase64(privateKeyPkcs8B64);
  if (!der) throw new EnvelopeError("invalid_private_key");
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: der, format: "der", type: "pkcs8" });
  } catch (cause) {
    throw new EnvelopeError("invalid_private_key", { cause });
  }
  // Go's SDK rejects other curves (/docs/envelopes); so do we.
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== CURVE) {
    throw new EnvelopeError("invalid_private_key");
  }
  const { d } = key.export({ format: "jwk" });
  if (!d) throw new EnvelopeError("invalid_private_key");
  return Buffer.from(d, "base64url");
}

interface EnvelopeParts {
  ephemeralPoint: Buffer;
  nonce: Buffer;
  tag: Buffer;
  ciphertext: Buffer;
}

/** Strict base64, version 0x01, at least 94 bytes, a point on the curve (/docs/envelopes). */
function parseEnvelope(envelopeB64: string): EnvelopeParts {
  const bytes = findStrictBase64(envelopeB64);
  if (!bytes || bytes.length < ENVELOPE_HEADER_BYTES || bytes[0] !== VERSION) {
    throw new EnvelopeError("invalid_envelope");
  }
  const parts = {
    ephemeralPoint: bytes.subarray(ENVELOPE_LAYOUT.ephemeralPoint, ENVELOPE_LAYOUT.nonce),
    nonce: bytes.subarray(ENVELOPE_LAYOUT.nonce, ENVELOPE_LAYOUT.tag),
    tag: bytes.subarray(ENVELOPE_LAYOUT.tag, ENVELOPE_LAYOUT.ciphertext),
    ciphertext: bytes.subarray(ENVELOPE_LAYOUT.ciphertext),
  };
  if (!isRawPoint(parts.ephemeralPoint)) throw new EnvelopeError("invalid_envelope");
  return parts;
}

/**
 * Opens an envelope with the recipient's base64 PKCS#8 private key. A wrong
 * key, a corrupted or truncated envelope or a non-JSON plaintext all throw
 * EnvelopeError("invalid_envelope"), as the SDKs reject them (/docs/envelopes).
 * The result is not validated: `T` is the caller's claim.
 */
export function openJson<T = unknown>(privateKeyPkcs8B64: string, envelopeB64: string): T {
  const scalar = toPrivateScalar(privateKeyPkcs8B64);
  const parts = parseEnvelope(envelopeB64);
  try {
    const recipient = createECDH(CURVE);
    recipient.setPrivateKey(scalar);
    const key = deriveKey(recipient.computeSecret(parts.ephemeralPoint));
    const decipher = createDecipheriv("aes-256-gcm", key, parts.nonce, {
      authTagLength: TAG_BYTES,
    });
    decipher.setAuthTag(parts.tag);
    const plaintext = Buffer.concat([decipher.update(parts.ciphertext), decipher.final()]);
    return JSON.parse(plaintext.toString("utf8")) as T;
  } catch (cause) {
    throw new EnvelopeError("invalid_envelope", { cause });
  }
}

/**
 * A fresh P-256 key pair in the wire formats of /docs/envelopes (PKCS#8 base64,
 * raw point base64). For tests, the demo and the sandbox: real users generate
 * theirs in the browser and partners on their own machines.
 */
export function generateKeyPair(): { privateKeyPkcs8B64: string; publicKeyRawB64: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: CURVE });
  // An uncompressed P-256 SPKI ends with the 65-byte raw point.
  const point = publicKey.export({ format: "der", type: "spki" }).subarray(-RAW_POINT_BYTES);
  return {
    privateKeyPkcs8B64: privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
    publicKeyRawB64: point.toString("base64"),
  };
}
