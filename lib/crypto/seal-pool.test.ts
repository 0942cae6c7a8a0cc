import { availableParallelism } from "node:os";
import { afterAll, describe, expect, it, vi } from "vitest";
import { generateKeyPair, openJson, toPlaintext } from "./envelope";
import {
  cgroupCpuLimit,
  chunkSize,
  sealAll,
  SEAL_CHUNK,
  SEAL_WORKER_IDLE_MS,
  sealPoolSize,
  sealPoolWorkers,
  stopSealPool,
} from "./seal-pool";

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
    expect(sealPoolSize()).toBeLessThanOrEqual(availableParallelism());
  });

  it("counts a container's CPU limit, not the host's cores", () => {
    // cgroup v2 cpu.max: "quota period", or "max period" without a limit.
    expect(cgroupCpuLimit("100000 100000\n")).toBe(1);
    expect(cgroupCpuLimit("150000 100000")).toBe(2);
    expect(cgroupCpuLimit("50000 100000")).toBe(1);
    expect(cgroupCpuLimit("400000 100000")).toBe(4);
    expect(cgroupCpuLimit("max 100000")).toBeNull();
    expect(cgroupCpuLimit(null)).toBeNull();
    expect(cgroupCpuLimit("")).toBeNull();
  });

  it("stops its workers once they are idle, and starts them again for the next batch", async () => {
    const keys = generateKeyPair();
    await stopSealPool();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      await sealAll(keys.publicKeyRawB64, Array(SEAL_CHUNK * 2).fill("{}"));
      expect(sealPoolWorkers()).toBeGreaterThanOrEqual(1);
      vi.advanceTimersByTime(SEAL_WORKER_IDLE_MS - 1);
      expect(sealPoolWorkers()).toBeGreaterThanOrEqual(1);
      vi.advanceTimersByTime(1);
      expect(sealPoolWorkers()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    const again = await sealAll(keys.publicKeyRawB64, Array(SEAL_CHUNK).fill('{"a":1}'));
    expect(openJson(keys.privateKeyPkcs8B64, again[SEAL_CHUNK - 1] ?? "")).toEqual({ a: 1 });
    expect(sealPoolWorkers()).toBeGreaterThanOrEqual(1);
  });
});
