import { describe, expect, it } from "vitest";
import {
  generateUserKey,
  InvalidBackupError,
  parseCredentialsBundle,
  PBKDF2_ITERATIONS,
  publicKeyOf,
  toCredentialsBundle,
  unwrapPrivateKey,
  wrapPrivateKey,
  WrongPassphraseError,
} from "./browser-key";

// The envelope scheme's known-good key pair.
const VECTOR = {
  privateKey:
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgwtrn7m/sa34/hBuZ8N4AL8a7B5LEIsXdKPtRA/QcVQehRANCAASL5jRvJBBcHolA7G4sa2gkTviz7bdoP0gKMY1yfKq7GjDSptjHojQf5NjRo7H2BjWmwpEjwv9O79Q3c3/a+35l",
  publicKey:
    "BIvmNG8kEFweiUDsbixraCRO+LPtt2g/SAoxjXJ8qrsaMNKm2MeiNB/k2NGjsfYGNabCkSPC/07v1Ddzf9r7fmU=",
};

describe("the user's key in the browser", () => {
  it("generates a P-256 pair in the envelope scheme's formats", async () => {
    const pair = await generateUserKey();
    expect(pair.privateKey).toMatch(/^MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg/);
    expect(atob(pair.publicKey)).toHaveLength(65);
    expect(pair.publicKey.startsWith("B")).toBe(true);
    expect(await publicKeyOf(pair.privateKey)).toBe(pair.publicKey);
  });

  it("derives the known public key from the known private key", async () => {
    expect(await publicKeyOf(VECTOR.privateKey)).toBe(VECTOR.publicKey);
  });

  it("wraps with a passphrase (PBKDF2 600 000) and refuses a wrong one", async () => {
    expect(PBKDF2_ITERATIONS).toBeGreaterThanOrEqual(600_000);
    // Fewer iterations keep the test quick; the production count is the default.
    const wrapped = await wrapPrivateKey(VECTOR, "correct horse battery", 1000);
    expect(wrapped.ciphertext).not.toContain(VECTOR.privateKey.slice(0, 20));
    expect(await unwrapPrivateKey(wrapped, "correct horse battery")).toEqual(VECTOR);
    await expect(unwrapPrivateKey(wrapped, "wrong passphrase!")).rejects.toBeInstanceOf(
      WrongPassphraseError,
    );
  });

  it("round-trips the developer export, labelled as this service's and warning of its plain key", async () => {
    const bundle = toCredentialsBundle({
      issuer: "http://localhost:3000",
      user: "a@b",
      pair: VECTOR,
      now: new Date(0),
    });
    expect(bundle).toMatchObject({ service: "Bank Connect", apiBaseUrl: "http://localhost:3000" });
    expect(bundle.warning).toMatch(/plain form/);
    expect(bundle.encryptionKey).toMatchObject({
      curve: "P-256",
      privateKeyFormat: "pkcs8-base64",
      privateKey: VECTOR.privateKey,
      publicKey: VECTOR.publicKey,
    });
    expect(await parseCredentialsBundle(JSON.stringify(bundle))).toEqual(VECTOR);
  });

  it("accepts privateKeyPkcs8B64 and refuses broken files", async () => {
    expect(
      await parseCredentialsBundle(
        JSON.stringify({ encryptionKey: { privateKeyPkcs8B64: VECTOR.privateKey } }),
      ),
    ).toEqual(VECTOR);
    await expect(parseCredentialsBundle("not json")).rejects.toBeInstanceOf(InvalidBackupError);
    await expect(parseCredentialsBundle("{}")).rejects.toBeInstanceOf(InvalidBackupError);
    await expect(
      parseCredentialsBundle(JSON.stringify({ encryptionKey: { privateKey: "AAAA" } })),
    ).rejects.toBeInstanceOf(InvalidBackupError);
    const mismatched = {
      encryptionKey: {
        privateKey: VECTOR.privateKey,
        publicKey: (await generateUserKey()).publicKey,
      },
    };
    await expect(parseCredentialsBundle(JSON.stringify(mismatched))).rejects.toBeInstanceOf(
      InvalidBackupError,
    );
  });
});
