import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setSetting } from "../env";
import {
  inSyncSlot,
  SYNC_QUEUE_WAIT_MS,
  SyncBusyError,
  SyncDeadline,
  SyncDeadlineError,
} from "./budget";

/** The sync slots of one process, with SYNC_CONCURRENCY=2 (so four may wait per slot: eight). */

beforeAll(() => setSetting("SYNC_CONCURRENCY", "2"));
afterAll(() => setSetting("SYNC_CONCURRENCY", ""));

/** Work that runs until `finish()` is called. */
function heldWork(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const result = inSyncSlot(async () => {
    log.push(`start ${name}`);
    await done;
    return name;
  });
  return { finish, result };
}

describe("sync slots", () => {
  it("run two at once, hand a freed slot to the next waiter in order, and refuse past the queue", async () => {
    const log: string[] = [];
    const running = [heldWork(log, "a"), heldWork(log, "b")];
    const waiting = ["c", "d", "e", "f", "g", "h", "i", "j"].map((name) => heldWork(log, name));
    await expect(inSyncSlot(async () => "refused")).rejects.toBeInstanceOf(SyncBusyError);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(["start a", "start b"]);

    running[1]?.finish();
    expect(await running[1]?.result).toBe("b");
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(["start a", "start b", "start c"]);
    for (const work of [...running, ...waiting]) work.finish();
    expect(await Promise.all(waiting.map((work) => work.result))).toEqual([
      "c",
      "d",
      "e",
      "f",
      "g",
      "h",
      "i",
      "j",
    ]);
  });

  it(`refuse a sync that waited ${SYNC_QUEUE_WAIT_MS / 1000} s without a slot, and free its place`, async () => {
    const log: string[] = [];
    const running = [heldWork(log, "a"), heldWork(log, "b")];
    const late = heldWork(log, "late");
    await expect(late.result).rejects.toBeInstanceOf(SyncBusyError);
    for (const work of running) work.finish();
    await Promise.all(running.map((work) => work.result));
    expect(await inSyncSlot(async () => "next")).toBe("next");
    expect(log).toEqual(["start a", "start b"]);
  }, 30_000);
});

describe("the sync deadline", () => {
  it("throws SyncDeadlineError once passed, and aborts its signal with it", async () => {
    const deadline = new SyncDeadline(50);
    expect(() => deadline.check()).not.toThrow();
    await new Promise((resolve) => deadline.signal.addEventListener("abort", resolve));
    expect(deadline.expired).toBe(true);
    expect(deadline.remainingMs()).toBe(0);
    expect(() => deadline.check()).toThrow(SyncDeadlineError);
    expect(deadline.signal.reason).toBeInstanceOf(SyncDeadlineError);
  });
});
