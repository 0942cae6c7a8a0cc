import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";

describe("API keys' last use", () => {
  it("is one set per process: a use noted by one copy of the module is written by another's flush", async () => {
    // The service's HTTP server and Next's bundle each load their own copy.
    const first = await import("./last-use");
    vi.resetModules();
    const second = await import("./last-use");
    expect(second).not.toBe(first);

    const before = second.pendingKeyUses();
    first.noteKeyUsed(randomUUID());
    expect(second.pendingKeyUses()).toBe(before + 1);
    await second.flushKeyUsesOnShutdown();
    expect(first.pendingKeyUses()).toBe(0);
  });
});
