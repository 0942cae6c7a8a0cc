import { createECDH, ECDH } from "node:crypto";
import { describe, expect, it } from "vitest";
import { rawSetting, setSetting } from "../env";
import { nativeAgreementForTests } from "../../test/native-agreement";
import { generateKeyPair, openJson, sealJson, sealingCrypto } from "./envelope";
import {
  AGREEMENT_BYTES,
  agreesWithNode,
  nativeAgreement,
  nativeAgreementUnavailable,
  type Agree,
} from "./p256-agree";

const native = nativeAgreementForTests("lib/crypto/p256-agree.test.ts");
const agree: Agree = (recipient, count) => {
  if (!native) throw new Error("the native P-256 key agreement is not loaded");
  return native.agree(recipient, count);
};

function recipient() {
  const ecdh = createECDH("prime256v1");
  return { ecdh, point: ecdh.generateKeys() };
}

describe.skipIf(!native)("the native P-256 key agreement", () => {
  it("is built and loaded by `npm install`", () => {
    expect(native?.modulePath).toMatch(/p256_agree\.node$/);
  });

  it("gives each record a fresh point on the curve and the secret node:crypto agrees with it", () => {
    const { ecdh, point } = recipient();
    const records = agree(point, 200);
    expect(records).toHaveLength(200 * AGREEMENT_BYTES);
    const points = new Set<string>();
    for (let index = 0; index < 200; index += 1) {
      const record = records.subarray(index * AGREEMENT_BYTES, (index + 1) * AGREEMENT_BYTES);
      const ephemeral = record.subarray(0, 65);
      expect(ephemeral[0]).toBe(0x04);
      // convertKey throws for a point that is not on P-256.
      expect(
        ECDH.convertKey(ephemeral, "prime256v1", undefined, undefined, "uncompressed"),
      ).toEqual(ephemeral);
      expect(ecdh.computeSecret(ephemeral).equals(record.subarray(65))).toBe(true);
      points.add(ephemeral.toString("hex"));
    }
    expect(points.size).toBe(200);
  });

  it("answers an empty batch with no records", () => {
    expect(agree(recipient().point, 0)).toHaveLength(0);
  });

  it("refuses a recipient that is not a 65-byte uncompressed point on P-256", () => {
    const { point } = recipient();
    const compressed = ECDH.convertKey(point, "prime256v1", undefined, undefined, "compressed");
    const offCurve = Buffer.from(point);
    offCurve[64] = (offCurve[64] ?? 0) ^ 1;
    const zeros = Buffer.concat([Buffer.of(0x04), Buffer.alloc(64)]);
    expect(() => agree(point.subarray(0, 64), 1)).toThrow(TypeError);
    expect(() => agree(compressed as Buffer, 1)).toThrow(TypeError);
    expect(() => agree(Buffer.concat([Buffer.of(0x05), point.subarray(1)]), 1)).toThrow(TypeError);
    expect(() => agree(offCurve, 1)).toThrow("recipient is not a point on P-256");
    expect(() => agree(zeros, 1)).toThrow("recipient is not a point on P-256");
    const loose = agree as unknown as (recipient: unknown, count: unknown) => Buffer;
    expect(() => loose(point.toString("base64"), 1)).toThrow(TypeError);
    expect(() => loose([...point], 1)).toThrow(TypeError);
    expect(() => loose(new Uint16Array(65), 1)).toThrow(TypeError);
  });

  it("refuses a count that is not an integer from 0 to 65536", () => {
    const { point } = recipient();
    const loose = agree as unknown as (recipient: Uint8Array, count: unknown) => Buffer;
    for (const count of [-1, 1.5, 65_537, Number.NaN, Infinity, "3", null]) {
      expect(() => loose(point, count), String(count)).toThrow(TypeError);
    }
    expect(() => (agree as unknown as (recipient: Uint8Array) => Buffer)(point)).toThrow(TypeError);
  });

  it("leaves node:crypto's error reporting as it was after a refusal", () => {
    expect(() => agree(Buffer.concat([Buffer.of(0x04), Buffer.alloc(64)]), 1)).toThrow();
    const { ecdh, point } = recipient();
    const other = createECDH("prime256v1");
    const otherPoint = other.generateKeys();
    expect(other.computeSecret(point)).toEqual(ecdh.computeSecret(otherPoint));
  });
});

describe.skipIf(!native)("the loader's check against node:crypto", () => {
  it("accepts the addon", () => {
    expect(agreesWithNode(agree)).toBe(true);
  });

  it("refuses an agreement whose secret node:crypto does not find", () => {
    const wrongSecret: Agree = (point, count) => {
      const records = agree(point, count);
      records[AGREEMENT_BYTES - 1] = (records[AGREEMENT_BYTES - 1] ?? 0) ^ 1;
      return records;
    };
    const tooShort: Agree = (point, count) => agree(point, count).subarray(1);
    expect(agreesWithNode(wrongSecret)).toBe(false);
    expect(agreesWithNode(tooShort)).toBe(false);
  });
});

describe("without the addon", () => {
  /** Runs `body` with the loader's cache emptied and P256_AGREE_ADDON set to `setting`. */
  function withSetting(setting: string, body: () => void) {
    const cache = globalThis as { bankConnectNativeAgreement?: unknown };
    const loaded = cache.bankConnectNativeAgreement;
    const previous = rawSetting("P256_AGREE_ADDON");
    setSetting("P256_AGREE_ADDON", setting);
    delete cache.bankConnectNativeAgreement;
    try {
      body();
    } finally {
      setSetting("P256_AGREE_ADDON", previous ?? "");
      cache.bankConnectNativeAgreement = loaded;
    }
  }

  it("seals with node:crypto, and the envelopes open the same", () => {
    withSetting("off", () => {
      expect(nativeAgreement()).toBeNull();
      expect(nativeAgreementUnavailable()).toBe("P256_AGREE_ADDON=off leaves it unloaded");
      expect(sealingCrypto().agree).toBeUndefined();
      const keys = generateKeyPair();
      const envelope = sealJson(keys.publicKeyRawB64, { amount: "12.50" });
      expect(openJson(keys.privateKeyPkcs8B64, envelope)).toEqual({ amount: "12.50" });
    });
    expect(sealingCrypto().agree).toBe(native?.agree);
  });

  it("says which file does not load, and how to build it", () => {
    withSetting("native/p256-agree/no-such-build.node", () => {
      expect(nativeAgreement()).toBeNull();
      expect(nativeAgreementUnavailable()).toMatch(
        /no-such-build\.node does not load \(.+\): npm rebuild @bank-connect\/p256-agree/,
      );
    });
  });
});
