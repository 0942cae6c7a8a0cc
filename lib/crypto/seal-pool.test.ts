import { afterAll, describe, expect, it } from "vitest";
import { generateKeyPair, openJson, toPlaintext } from "./envelope";
import { chunkSize, sealAll, SEAL_CHUNK, sealPoolSize, stopSealPool } from "./seal-pool";

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

  it("splits a batch in equal parts, over every worker once each gets a useful share", () => {
    // One chunk for 200 would leave the second worker idle.
    expect(chunkSize(200, 2)).toBe(100);
    expect(chunkSize(300, 2)).toBe(150);
    expect(chunkSize(500, 2)).toBe(250);
    // Never more than SEAL_CHUNK per message, and equal parts rather than a short last one.
    expect(chunkSize(SEAL_CHUNK * 3 + 7, 2)).toBe(Math.ceil((SEAL_CHUNK * 3 + 7) / 4));
    // Too few for two workers to be worth it: one message.
    expect(chunkSize(40, 2)).toBe(40);
    expect(chunkSize(200, 1)).toBe(200);
  });

  it("runs one worker per core", () => {
    expect(sealPoolSize()).toBeGreaterThanOrEqual(1);
  });
});
