/**
 * Opening an envelope (/docs/envelopes) with Web Crypto, in the browser: what the
 * dashboard needs to answer the recipient-key possession challenge with a
 * key it has just generated, without the private key leaving the page.
 */

const HKDF_INFO = new TextEncoder().encode("bank.core.ci/zk/v1");
const HKDF_SALT = new Uint8Array(32);

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (char) => char.charCodeAt(0));

export async function openEnvelopeInBrowser<T>(
  privateKeyPkcs8B64: string,
  envelopeB64: string,
): Promise<T> {
  const bytes = fromBase64(envelopeB64);
  if (bytes.length < 94 || bytes[0] !== 0x01) throw new Error("Invalid or unsupported envelope");
  const subtle = globalThis.crypto.subtle;
  const privateKey = await subtle.importKey(
    "pkcs8",
    fromBase64(privateKeyPkcs8B64),
    { name: "ECDH", namedCurve: "P-256" },
    false,
    ["deriveBits"],
  );
  const ephemeral = await subtle.importKey(
    "raw",
    bytes.slice(1, 66),
    { name: "ECDH", namedCurve: "P-256" },
    false,
    [],
  );
  const shared = await subtle.deriveBits({ name: "ECDH", public: ephemeral }, privateKey, 256);
  const hkdf = await subtle.importKey("raw", shared, "HKDF", false, ["deriveKey"]);
  const key = await subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: HKDF_SALT, info: HKDF_INFO },
    hkdf,
    { name: "AES-GCM", length: 256 },
    false,
    ["decrypt"],
  );
  // Web Crypto wants ciphertext ‖ tag; the envelope carries the tag first.
  const sealed = new Uint8Array(bytes.length - 78);
  sealed.set(bytes.slice(94), 0);
  sealed.set(bytes.slice(78, 94), bytes.length - 94);
  const plaintext = await subtle.decrypt({ name: "AES-GCM", iv: bytes.slice(66, 78) }, key, sealed);
  return JSON.parse(new TextDecoder().decode(plaintext)) as T;
}
