import { createDecipheriv, createECDH, createPrivateKey, hkdfSync } from "node:crypto";

/**
 * The demo partner's own envelope opener (CONTRACT §8.2), as a partner would
 * write it: version 0x01 | ephemeral P-256 point (65) | nonce (12) | tag (16)
 * | ciphertext; ECDH → HKDF-SHA256 (32 zero bytes salt, info
 * "bank.core.ci/zk/v1") → AES-256-GCM; the plaintext is JSON.
 */

const HEADER_BYTES = 94;
const HKDF_INFO = "bank.core.ci/zk/v1";

export function openEnvelope<T>(privateKeyPkcs8B64: string, envelopeB64: string): T {
  const bytes = Buffer.from(envelopeB64, "base64");
  if (bytes.length < HEADER_BYTES || bytes[0] !== 0x01) {
    throw new Error("Invalid or unsupported envelope");
  }
  const ephemeral = bytes.subarray(1, 66);
  const nonce = bytes.subarray(66, 78);
  const tag = bytes.subarray(78, HEADER_BYTES);
  const ciphertext = bytes.subarray(HEADER_BYTES);
  const jwk = createPrivateKey({
    key: Buffer.from(privateKeyPkcs8B64, "base64"),
    format: "der",
    type: "pkcs8",
  }).export({ format: "jwk" });
  if (jwk.crv !== "P-256" || !jwk.d) throw new Error("the private key is not a P-256 key");
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.from(jwk.d, "base64url"));
  const shared = ecdh.computeSecret(ephemeral);
  const key = Buffer.from(hkdfSync("sha256", shared, Buffer.alloc(32), HKDF_INFO, 32));
  const decipher = createDecipheriv("aes-256-gcm", key, nonce);
  decipher.setAuthTag(tag);
  const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  return JSON.parse(plaintext.toString("utf8")) as T;
}

/** CONTRACT §8.2 null handling: a missing envelope opens to null. */
export function openOptional<T>(privateKey: string, envelope: unknown): T | null {
  return typeof envelope === "string" && envelope !== ""
    ? openEnvelope<T>(privateKey, envelope)
    : null;
}
