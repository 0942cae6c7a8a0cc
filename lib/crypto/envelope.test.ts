import {
  createCipheriv,
  createDecipheriv,
  createECDH,
  createHmac,
  createPrivateKey,
  hkdfSync,
  randomBytes,
} from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  ENVELOPE_HEADER_BYTES,
  ENVELOPE_LAYOUT,
  EnvelopeError,
  generateKeyPair,
  openJson,
  parseRawPublicKey,
  recipientKeyFingerprint,
  sealJson,
  sealPlaintexts,
} from "./envelope";
import { nativeAgreementForTests } from "../../test/native-agreement";
import type { Agree } from "./p256-agree";

/** The SDKs' known-good vector, verified against the published Node SDK. */
const native = nativeAgreementForTests("lib/crypto/envelope.test.ts");

const VECTOR = {
  privateKeyPkcs8B64:
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgwtrn7m/sa34/hBuZ8N4AL8a7B5LEIsXdKPtRA/QcVQehRANCAASL5jRvJBBcHolA7G4sa2gkTviz7bdoP0gKMY1yfKq7GjDSptjHojQf5NjRo7H2BjWmwpEjwv9O79Q3c3/a+35l",
  publicKeyRawB64:
    "BIvmNG8kEFweiUDsbixraCRO+LPtt2g/SAoxjXJ8qrsaMNKm2MeiNB/k2NGjsfYGNabCkSPC/07v1Ddzf9r7fmU=",
  fingerprint: "762cb80a5e1bedb0",
  uidEnvelope:
    "AQRnbwT4RL0CIfW+/XM1fRFPs8Ydfq73vDgSQuszQMH5Q5T/m46Qpi9fBA3po+teUaEJ+K/xq7l5EK2b4cd7MMoFGTdvzmtmcpLy4c8eoIWVhO2aTVyjx6V8tW1LO2AO014fI/6ELhWHi4Es/SxFcs4UvfUrrl27J3vK4o4m2+FJC8FX4NGcITzYnLM=",
};

/** The SDKs' wrong-key fixture: a valid P-256 key that cannot open the vectors. */
const WRONG_KEY =
  "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgdB9vjCwdrF1FckSNDHrw8M7PNNkpUB/tAK/EgAbZWvihRANCAASgg8XOKlU9VeYCee9+tQKtDSkFze10CRTA4b2gGKDlHIFw+QTf1AkjAjLfWqCJ4BctUqQtAYs0v0Y90Bw1wsBF";

/** The SDKs' recipient-key challenge fixture (sealed to a key not in the repo). */
const CHALLENGE = {
  nonce: "NNw2JL6iVtsXuIR9cRqfvzuYvTAZWhJoleBbbQbPC3A=",
  envelope:
    "AQQEPZHg+J2lyD1aqMB1PlWr0NDM9W04Ha87Kk1utMGxpddCDc+mniviIiOihZrj2F+F6AUSSh5e8oLmHKrMthaVTF5xg8DchT3hww9YMO1PKvPP17UpRQSlYUF65pvcXBWE+0m7TR3SnasGIuKjNB0Gg1PiT9gMTMGwueH8XFbuN5vJmfALIu3Pl2+8zQqN5APFEq+Y",
};

/** Every payload shape (/docs/envelopes), money as decimal strings. */
const PAYLOADS = {
  account: {
    ownerName: "Tatic ApS",
    iban: "DK6466952001724927",
    bban: "66952001724927",
    accountName: "Erhverv",
    product: "Business",
  },
  displayName: { displayName: "Drift" },
  uid: { uid: "c5d93aa7-5e23-4da0-ba88-42b9a584492c" },
  balance: { amount: "828.13", name: "Tatic" },
  transaction: {
    amount: "194.23",
    creditorName: "One.com",
    creditorIban: null,
    creditorBban: null,
    creditorAgentBic: null,
    debtorName: null,
    debtorIban: null,
    debtorBban: null,
    debtorAgentBic: null,
    remittanceInformation: "One.com",
    note: null,
    referenceNumber: null,
    exchangeRate: null,
    merchantCategoryCode: "4816",
    balanceAfter: "633.90",
    balanceAfterCurrency: "DKK",
    rawJson: '{"id":"txn-1"}',
  },
  openConsent: { sessionId: "22222222-2222-4222-8222-222222222222" },
  challenge: { nonce: CHALLENGE.nonce },
  unicode: { ownerName: "Ærø Søstrene Åberg — 株式会社", amount: "-0.01" },
};

/**
 * An independent sealer written from /docs/envelopes alone, with WebCrypto-free
 * Node primitives: proves openJson reads the documented layout, not just its
 * own output.
 */
function sealRaw(recipientRawB64: string, plaintext: string): string {
  const ephemeral = createECDH("prime256v1");
  const point = ephemeral.generateKeys();
  const shared = ephemeral.computeSecret(Buffer.from(recipientRawB64, "base64"));
  const key = Buffer.from(hkdfSync("sha256", shared, Buffer.alloc(32), "bank.core.ci/zk/v1", 32));
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([Buffer.of(1), point, nonce, cipher.getAuthTag(), ciphertext]).toString(
    "base64",
  );
}

const bytesOf = (envelope: string) => Buffer.from(envelope, "base64");
const rebuild = (bytes: Buffer) => bytes.toString("base64");

function expectInvalidEnvelope(open: () => unknown) {
  let caught: unknown;
  try {
    open();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(EnvelopeError);
  expect((caught as EnvelopeError).code).toBe("invalid_envelope");
  expect((caught as EnvelopeError).message).toBe("Invalid or unsupported envelope");
}

/** Opens envelope bytes with node:crypto's own HKDF, as an SDK would, without this module. */
function openIndependently(privateKeyPkcs8B64: string, bytes: Buffer): string {
  const recipient = createECDH("prime256v1");
  const jwk = createPrivateKey({
    key: Buffer.from(privateKeyPkcs8B64, "base64"),
    format: "der",
    type: "pkcs8",
  }).export({ format: "jwk" });
  recipient.setPrivateKey(Buffer.from(jwk.d ?? "", "base64url"));
  const shared = recipient.computeSecret(bytes.subarray(1, 66));
  const key = Buffer.from(hkdfSync("sha256", shared, Buffer.alloc(32), "bank.core.ci/zk/v1", 32));
  const decipher = createDecipheriv("aes-256-gcm", key, bytes.subarray(66, 78));
  decipher.setAuthTag(bytes.subarray(78, 94));
  return Buffer.concat([decipher.update(bytes.subarray(94)), decipher.final()]).toString("utf8");
}

describe("the SDKs' known-good vector", () => {
  it("opens the uid envelope with its private key", () => {
    expect(openJson(VECTOR.privateKeyPkcs8B64, VECTOR.uidEnvelope)).toEqual({
      uid: "c5d93aa7-5e23-4da0-ba88-42b9a584492c",
    });
  });

  it("fingerprints its public key as SHA-256 of the raw point, 16 hex characters", () => {
    expect(recipientKeyFingerprint(VECTOR.publicKeyRawB64)).toBe(VECTOR.fingerprint);
  });

  it("rejects the uid envelope under the fixtures' wrong key", () => {
    expectInvalidEnvelope(() => openJson(WRONG_KEY, VECTOR.uidEnvelope));
  });

  it("seals to the vector's public key so that its private key opens it", () => {
    const envelope = sealJson(VECTOR.publicKeyRawB64, PAYLOADS.uid);
    expect(openJson(VECTOR.privateKeyPkcs8B64, envelope)).toEqual(PAYLOADS.uid);
  });
});

describe("sealJson and openJson", () => {
  it("round-trip every documented payload shape with a fresh key", () => {
    const keys = generateKeyPair();
    for (const payload of Object.values(PAYLOADS)) {
      expect(openJson(keys.privateKeyPkcs8B64, sealJson(keys.publicKeyRawB64, payload))).toEqual(
        payload,
      );
    }
  });

  it("keeps money as JSON strings", () => {
    const keys = generateKeyPair();
    const opened = openJson<{ amount: unknown }>(
      keys.privateKeyPkcs8B64,
      sealJson(keys.publicKeyRawB64, PAYLOADS.balance),
    );
    expect(opened.amount).toBe("828.13");
  });

  it("uses fresh randomness for every envelope (ephemeral point and nonce)", () => {
    const keys = generateKeyPair();
    const a = bytesOf(sealJson(keys.publicKeyRawB64, PAYLOADS.uid));
    const b = bytesOf(sealJson(keys.publicKeyRawB64, PAYLOADS.uid));
    const point = (bytes: Buffer) => bytes.subarray(ENVELOPE_LAYOUT.ephemeralPoint, 66);
    const nonce = (bytes: Buffer) => bytes.subarray(ENVELOPE_LAYOUT.nonce, 78);
    expect(point(a).equals(point(b))).toBe(false);
    expect(nonce(a).equals(nonce(b))).toBe(false);
  });

  it.each<[string, Agree | null]>([
    ["node:crypto's ECDH", null],
    // Left out, with a message, where the addon is not built (never in CI).
    ...(native ? [["the native key agreement", native.agree] as [string, Agree]] : []),
  ])(
    "gives every envelope of a batch its own point and nonce, each read by an independent opener (%s)",
    (_, agree) => {
      const keys = generateKeyPair();
      const plaintexts = Array.from({ length: 300 }, (_, index) => `{"n":${index}}`);
      const batch = sealPlaintexts(
        { createECDH, createHmac, createCipheriv, randomBytes, agree },
        parseRawPublicKey(keys.publicKeyRawB64),
        plaintexts,
      ).map(bytesOf);
      const distinct = (part: (bytes: Buffer) => Buffer) =>
        new Set(batch.map((bytes) => part(bytes).toString("hex"))).size;
      expect(distinct((bytes) => bytes.subarray(ENVELOPE_LAYOUT.ephemeralPoint, 66))).toBe(300);
      expect(distinct((bytes) => bytes.subarray(ENVELOPE_LAYOUT.nonce, 78))).toBe(300);
      expect(batch.map((bytes) => openIndependently(keys.privateKeyPkcs8B64, bytes))).toEqual(
        plaintexts,
      );
    },
  );

  it("lays out 0x01 | point 65 | nonce 12 | tag 16 | ciphertext (/docs/envelopes)", () => {
    const keys = generateKeyPair();
    const plaintext = JSON.stringify(PAYLOADS.account);
    const envelope = sealJson(keys.publicKeyRawB64, PAYLOADS.account);
    const bytes = bytesOf(envelope);
    expect(ENVELOPE_LAYOUT).toEqual({
      version: 0,
      ephemeralPoint: 1,
      nonce: 66,
      tag: 78,
      ciphertext: 94,
    });
    expect(bytes[0]).toBe(0x01);
    expect(bytes[1]).toBe(0x04);
    expect(() => parseRawPublicKey(rebuild(bytes.subarray(1, 66)))).not.toThrow();
    expect(bytes.length).toBe(ENVELOPE_HEADER_BYTES + Buffer.byteLength(plaintext));
    // 0x01 0x04 → "AQ" then one of Q–T depending on the first X bits (/docs/envelopes).
    expect(envelope).toMatch(/^AQ[QRST]/);
  });

  it("emits strict, padded, standard base64", () => {
    const keys = generateKeyPair();
    for (let i = 0; i < 20; i += 1) {
      const envelope = sealJson(keys.publicKeyRawB64, { n: "x".repeat(i) });
      expect(envelope).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
      expect(envelope.length % 4).toBe(0);
      expect(bytesOf(envelope).toString("base64")).toBe(envelope);
    }
  });

  it("seals compact JSON: a {nonce} challenge is 94 + 56 = 150 bytes, like the §12 fixture", () => {
    const keys = generateKeyPair();
    const envelope = sealJson(keys.publicKeyRawB64, { nonce: CHALLENGE.nonce });
    expect(JSON.stringify({ nonce: CHALLENGE.nonce }).length).toBe(56);
    expect(bytesOf(envelope).length).toBe(150);
    expect(envelope.length).toBe(200);
    expect(CHALLENGE.envelope.length).toBe(envelope.length);
    expect(bytesOf(CHALLENGE.envelope).length).toBe(150);
  });

  it("opens what an independent sealer produces", () => {
    const keys = generateKeyPair();
    const envelope = sealRaw(keys.publicKeyRawB64, JSON.stringify(PAYLOADS.balance));
    expect(openJson(keys.privateKeyPkcs8B64, envelope)).toEqual(PAYLOADS.balance);
  });

  it("produces what an independent opener reads", () => {
    const keys = generateKeyPair();
    const bytes = bytesOf(sealJson(keys.publicKeyRawB64, PAYLOADS.displayName));
    expect(openIndependently(keys.privateKeyPkcs8B64, bytes)).toBe('{"displayName":"Drift"}');
  });

  it("refuses a recipient key that is not a raw P-256 point", () => {
    expect(() => sealJson("not a key", {})).toThrow(EnvelopeError);
  });
});

describe("openJson rejects what the SDKs reject (/docs/envelopes)", () => {
  const keys = generateKeyPair();
  const good = sealJson(keys.publicKeyRawB64, PAYLOADS.transaction);
  const open = (envelope: string) => () => openJson(keys.privateKeyPkcs8B64, envelope);

  it("rejects the v2 envelope (0x02 followed by 120 × 0x07)", () => {
    const v2 = rebuild(Buffer.concat([Buffer.of(0x02), Buffer.alloc(120, 0x07)]));
    expectInvalidEnvelope(open(v2));
  });

  it("rejects a version byte other than 0x01 on an otherwise good envelope", () => {
    const bytes = bytesOf(good);
    bytes[0] = 0x02;
    expectInvalidEnvelope(open(rebuild(bytes)));
  });

  it("rejects envelopes shorter than the 94-byte header", () => {
    expectInvalidEnvelope(open(rebuild(bytesOf(good).subarray(0, 93))));
    expectInvalidEnvelope(open(""));
  });

  it("rejects a truncated ciphertext", () => {
    const bytes = bytesOf(good);
    expectInvalidEnvelope(open(rebuild(bytes.subarray(0, bytes.length - 1))));
  });

  it("rejects a corrupted tag, nonce or ciphertext", () => {
    for (const offset of [ENVELOPE_LAYOUT.nonce, ENVELOPE_LAYOUT.tag, ENVELOPE_LAYOUT.ciphertext]) {
      const bytes = bytesOf(good);
      bytes[offset] = (bytes[offset] ?? 0) ^ 0x01;
      expectInvalidEnvelope(open(rebuild(bytes)));
    }
  });

  it("rejects an ephemeral point that is off the curve or not uncompressed", () => {
    const offCurve = bytesOf(good);
    offCurve[65] = (offCurve[65] ?? 0) ^ 0x01; // last byte of Y
    expectInvalidEnvelope(open(rebuild(offCurve)));
    const compressed = bytesOf(good);
    compressed[1] = 0x02;
    expectInvalidEnvelope(open(rebuild(compressed)));
  });

  it("rejects base64url, unpadded and non-canonical base64", () => {
    const urlSafe = good.replace(/\+/g, "-").replace(/\//g, "_");
    if (urlSafe !== good) expectInvalidEnvelope(open(urlSafe));
    const unpadded = sealJson(keys.publicKeyRawB64, { a: "b" }); // 94 + 9 bytes → one "="
    expect(unpadded.endsWith("=")).toBe(true);
    expectInvalidEnvelope(open(unpadded.replace(/=+$/, "")));
    expectInvalidEnvelope(open(`${good}\n`));
    expectInvalidEnvelope(open(` ${good}`));
  });

  it("rejects a well-sealed plaintext that is not JSON", () => {
    expectInvalidEnvelope(open(sealRaw(keys.publicKeyRawB64, "not json")));
  });

  it("rejects a private key that is not P-256 PKCS#8", () => {
    expect(() => openJson("AAAA", good)).toThrow(EnvelopeError);
    expect(() => openJson("not base64!", good)).toThrow(/Invalid private key/);
  });
});

describe("parseRawPublicKey", () => {
  const { publicKeyRawB64 } = generateKeyPair();

  it("returns the 65 raw bytes of a valid point", () => {
    const point = parseRawPublicKey(publicKeyRawB64);
    expect(point.length).toBe(65);
    expect(point[0]).toBe(0x04);
  });

  it("refuses the wrong length, a compressed prefix, an off-curve point and bad base64", () => {
    const point = parseRawPublicKey(publicKeyRawB64);
    const compressed = createECDH("prime256v1");
    compressed.generateKeys();
    const offCurve = Buffer.from(point);
    offCurve[64] = (offCurve[64] ?? 0) ^ 0x01;
    const wrongPrefix = Buffer.from(point);
    wrongPrefix[0] = 0x05;
    for (const bad of [
      rebuild(point.subarray(0, 64)),
      compressed.getPublicKey("base64", "compressed"),
      rebuild(offCurve),
      rebuild(wrongPrefix),
      rebuild(Buffer.concat([Buffer.of(0x04), Buffer.alloc(64)])),
      publicKeyRawB64.replace(/=$/, ""),
      "",
    ]) {
      expect(() => parseRawPublicKey(bad)).toThrow(/Invalid public key/);
    }
  });
});

describe("generateKeyPair", () => {
  it("exports PKCS#8 (184 base64 characters, MIGHAgEA…) and a raw point (88, B…)", () => {
    const keys = generateKeyPair();
    expect(keys.privateKeyPkcs8B64).toMatch(/^MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/);
    expect(keys.privateKeyPkcs8B64).toHaveLength(184);
    expect(keys.publicKeyRawB64).toHaveLength(88);
    expect(keys.publicKeyRawB64.startsWith("B")).toBe(true);
    const details = createPrivateKey({
      key: Buffer.from(keys.privateKeyPkcs8B64, "base64"),
      format: "der",
      type: "pkcs8",
    }).asymmetricKeyDetails;
    expect(details?.namedCurve).toBe("prime256v1");
  });

  it("gives pairs whose halves match", () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    const envelope = sealJson(a.publicKeyRawB64, { ok: true });
    expect(openJson(a.privateKeyPkcs8B64, envelope)).toEqual({ ok: true });
    expectInvalidEnvelope(() => openJson(b.privateKeyPkcs8B64, envelope));
  });
});
