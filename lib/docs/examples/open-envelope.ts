import { createDecipheriv, createECDH, createPrivateKey, hkdfSync } from "node:crypto";

/**
 * Open one envelope (/docs/envelopes) with a P-256 private key given as standard
 * base64 PKCS#8: your recipient key, or the user's relayed `privateKey`.
 */
export function openEnvelope<T>(privateKeyPkcs8B64: string, envelopeB64: string): T {
  const bytes = Buffer.from(envelopeB64, "base64");
  if (bytes.length < 94 || bytes[0] !== 0x01) throw new Error("Invalid or unsupported envelope");
  const ephemeralPublicKey = bytes.subarray(1, 66); // 0x04‖X‖Y
  const nonce = bytes.subarray(66, 78);
  const tag = bytes.subarray(78, 94); // the tag comes BEFORE the ciphertext
  const ciphertext = bytes.subarray(94);

  const jwk = createPrivateKey({
    key: Buffer.from(privateKeyPkcs8B64, "base64"),
    format: "der",
    type: "pkcs8",
  }).export({ format: "jwk" });
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(Buffer.from(jwk.d ?? "", "base64url"));
  const shared = ecdh.computeSecret(ephemeralPublicKey); // the 32-byte x-coordinate

  const key = Buffer.from(hkdfSync("sha256", shared, Buffer.alloc(32), "bank.core.ci/zk/v1", 32));
  const decipher = createDecipheriv("aes-256-gcm", key, nonce);
  decipher.setAuthTag(tag);
  const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  return JSON.parse(plaintext.toString("utf8")) as T;
}
