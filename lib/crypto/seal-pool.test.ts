import { afterAll, describe, expect, it } from "vitest";
import { generateKeyPair, openJson, toPlaintext } from "./envelope";
import { sealAll, SEAL_CHUNK, sealPoolSize, stopSealPool } from "./seal-pool";

afterAll(() => stopSealPool());

describe("the sealing pool", () => {
  it("seals in worker threads: every envelope opens with the recipient's key, in order", async () => {
    const keys = generateKeyPair();
    const payloads = Array.from({ length: SEAL_CHUNK * 3 + 7 }, (_, index) => ({
      amount: `${index}.50`,
      note: `entry ${index} æøå`,
    }));
    const envelopes = await sealAll(keys.publicKeyRawB64, payloads.map(toPlaintext));
    expect(envelopes).toHaveLength(payloads.length);
    expect(new Set(envelopes).size).toBe(payloads.length);
    for (const [index, envelope] of envelopes.entries()) {
      expect(openJson(keys.privateKeyPkcs8B64, envelope)).toEqual(payloads[index]);
    }
  });

  it("gives every envelope its own ephemeral point, also within one worker's chunk", async () => {
    const keys = generateKeyPair();
    const envelopes = await sealAll(keys.publicKeyRawB64, Array(SEAL_CHUNK).fill("{}"));
    const points = envelopes.map((envelope) =>
      Buffer.from(envelope, "base64").subarray(1, 66).toString("hex"),
    );
    expect(new Set(points).size).toBe(SEAL_CHUNK);
  });

  it("refuses a recipient that is not a raw P-256 point before any work", async () => {
    await expect(sealAll("AAAA", ["{}"])).rejects.toThrow(/Invalid public key/);
  });

  it("runs one worker per core", () => {
    expect(sealPoolSize()).toBeGreaterThanOrEqual(1);
  });
});
