import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateUserKey } from "./browser-key";
import {
  parsePasskeyWrappedKey,
  PasskeyKeyError,
  serializePasskeyWrappedKey,
  unwrapKeyWithPasskey,
  wrapKeyWithPasskey,
  type PasskeyWrappedKey,
} from "./passkey-key";

/**
 * The scheme as documented (docs/key-model.md), written again with
 * node:crypto: what a second implementation would do to open or make a
 * wrapped key.
 */
function documentedWrappingKey(prfOutput: Buffer, publicKey: string): Buffer {
  return Buffer.from(
    hkdfSync(
      "sha256",
      prfOutput,
      Buffer.from("bank-connect/passkey-wrap/v1", "utf8"),
      Buffer.from(publicKey, "base64"),
      32,
    ),
  );
}
const documentedAad = (publicKey: string) =>
  Buffer.from(`bank-connect-passkey-key/1|${publicKey}`, "utf8");

function documentedUnwrap(wrapped: PasskeyWrappedKey, prfOutput: Buffer): string {
  const sealed = Buffer.from(wrapped.ciphertext, "base64");
  const decipher = createDecipheriv(
    "aes-256-gcm",
    documentedWrappingKey(prfOutput, wrapped.publicKey),
    Buffer.from(wrapped.iv, "base64"),
  );
  decipher.setAAD(documentedAad(wrapped.publicKey));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([
    decipher.update(sealed.subarray(0, sealed.length - 16)),
    decipher.final(),
  ]).toString("base64");
}

/** A record naming `publicKey` but sealing `privateKey` (which may belong to another key). */
function documentedWrap(privateKey: string, publicKey: string, prfOutput: Buffer) {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", documentedWrappingKey(prfOutput, publicKey), iv);
  cipher.setAAD(documentedAad(publicKey));
  const body = Buffer.concat([cipher.update(Buffer.from(privateKey, "base64")), cipher.final()]);
  return {
    version: 1,
    publicKey,
    iv: iv.toString("base64"),
    ciphertext: Buffer.concat([body, cipher.getAuthTag()]).toString("base64"),
  } as const;
}

const prf = () => randomBytes(32);

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PasskeyKeyError) return error.reason;
    throw error;
  }
  throw new Error("the wrapped key opened");
}

describe("the key held by a passkey", () => {
  it("wraps and unwraps with the same PRF output", async () => {
    const pair = await generateUserKey();
    const output = prf();
    const wrapped = await wrapKeyWithPasskey(pair, output);
    expect(wrapped.version).toBe(1);
    expect(wrapped.publicKey).toBe(pair.publicKey);
    expect(Buffer.from(wrapped.iv, "base64")).toHaveLength(12);
    expect(wrapped.ciphertext).not.toContain(pair.privateKey.slice(0, 24));
    expect(await unwrapKeyWithPasskey(wrapped, output)).toEqual(pair);
    // An ArrayBuffer and a view into a larger buffer are the same secret.
    const padded = new Uint8Array(40);
    padded.set(output, 4);
    expect(await unwrapKeyWithPasskey(wrapped, padded.subarray(4, 36))).toEqual(pair);
    expect(await unwrapKeyWithPasskey(wrapped, new Uint8Array(output).buffer)).toEqual(pair);
  });

  it("follows the documented scheme: HKDF-SHA256 with the public key as info, AES-256-GCM with the public key bound", async () => {
    const pair = await generateUserKey();
    const output = prf();
    const wrapped = await wrapKeyWithPasskey(pair, output);
    expect(documentedUnwrap(wrapped, output)).toBe(pair.privateKey);
    const made = documentedWrap(pair.privateKey, pair.publicKey, output);
    expect(await unwrapKeyWithPasskey(made, output)).toEqual(pair);
  });

  it("draws a new iv for every wrap", async () => {
    const pair = await generateUserKey();
    const output = prf();
    const first = await wrapKeyWithPasskey(pair, output);
    const second = await wrapKeyWithPasskey(pair, output);
    expect(first.iv).not.toBe(second.iv);
    expect(first.ciphertext).not.toBe(second.ciphertext);
  });

  it("refuses the PRF output of another passkey", async () => {
    const pair = await generateUserKey();
    const wrapped = await wrapKeyWithPasskey(pair, prf());
    expect(await refusal(unwrapKeyWithPasskey(wrapped, prf()))).toBe("wrong_passkey");
  });

  it("refuses a PRF output that is not 32 bytes", async () => {
    const pair = await generateUserKey();
    const output = prf();
    await expect(wrapKeyWithPasskey(pair, output.subarray(0, 16))).rejects.toThrow(PasskeyKeyError);
    const wrapped = await wrapKeyWithPasskey(pair, output);
    expect(await refusal(unwrapKeyWithPasskey(wrapped, Buffer.alloc(0)))).toBe("wrong_passkey");
  });

  it("refuses a record whose public key was edited", async () => {
    const pair = await generateUserKey();
    const other = await generateUserKey();
    const output = prf();
    const wrapped = await wrapKeyWithPasskey(pair, output);
    expect(
      await refusal(unwrapKeyWithPasskey({ ...wrapped, publicKey: other.publicKey }, output)),
    ).toBe("wrong_passkey");
  });

  it("refuses an edited ciphertext or iv", async () => {
    const pair = await generateUserKey();
    const output = prf();
    const wrapped = await wrapKeyWithPasskey(pair, output);
    const bytes = Buffer.from(wrapped.ciphertext, "base64");
    bytes[10] = (bytes[10] ?? 0) ^ 1;
    expect(
      await refusal(
        unwrapKeyWithPasskey({ ...wrapped, ciphertext: bytes.toString("base64") }, output),
      ),
    ).toBe("wrong_passkey");
    expect(
      await refusal(
        unwrapKeyWithPasskey({ ...wrapped, iv: randomBytes(12).toString("base64") }, output),
      ),
    ).toBe("wrong_passkey");
  });

  it("compares the derived public key: a record sealing another private key is refused", async () => {
    const pair = await generateUserKey();
    const other = await generateUserKey();
    const output = prf();
    // Whoever holds the PRF output could seal any key under this public key's name.
    const lying = documentedWrap(other.privateKey, pair.publicKey, output);
    expect(documentedUnwrap(lying, output)).toBe(other.privateKey);
    expect(await refusal(unwrapKeyWithPasskey(lying, output))).toBe("damaged");
    // Or bytes that are no key at all.
    const garbage = documentedWrap(randomBytes(40).toString("base64"), pair.publicKey, output);
    expect(await refusal(unwrapKeyWithPasskey(garbage, output))).toBe("damaged");
  });

  it("reads and writes the stored JSON text, refusing anything else", async () => {
    const pair = await generateUserKey();
    const wrapped = await wrapKeyWithPasskey(pair, prf());
    const text = serializePasskeyWrappedKey(wrapped);
    expect(Object.keys(JSON.parse(text) as object)).toEqual([
      "version",
      "publicKey",
      "iv",
      "ciphertext",
    ]);
    expect(parsePasskeyWrappedKey(text)).toEqual(wrapped);
    expect(parsePasskeyWrappedKey(JSON.parse(text))).toEqual(wrapped);
    // Extra fields are not carried along.
    expect(parsePasskeyWrappedKey({ ...wrapped, extra: "x" })).toEqual(wrapped);
    for (const bad of [
      "not json",
      "null",
      JSON.stringify({ ...wrapped, version: 2 }),
      JSON.stringify({ ...wrapped, publicKey: "AAAA" }),
      JSON.stringify({ ...wrapped, iv: "AAAA" }),
      JSON.stringify({ ...wrapped, ciphertext: "" }),
      JSON.stringify({ ...wrapped, ciphertext: "not base64!" }),
    ]) {
      expect(() => parsePasskeyWrappedKey(bad), bad).toThrow(PasskeyKeyError);
    }
  });
});
