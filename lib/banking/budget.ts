import { setImmediate } from "node:timers/promises";
import { getEnv } from "../env";
import { registerDeadline } from "../upstream/deadline";

/**
 * The budget of bank syncs and consent storing (docs/capacity.md): at most
 * `SYNC_CONCURRENCY` run at once per process, a few more wait briefly for a
 * slot and the rest are refused at once; each runs under one overall
 * deadline (`SYNC_DEADLINE_SECONDS`) across every upstream page, the sealing
 * and the write; and long CPU work runs one sync at a time, in slices of a
 * few milliseconds with the event loop free in between, so a large account
 * slows other requests a little instead of stopping them.
 */

/** How long a sync waits for a free slot before it is refused. */
export const SYNC_QUEUE_WAIT_MS = 10_000;
/** Syncs that may wait per slot; beyond that a sync is refused without waiting. */
const WAITING_PER_SLOT = 4;
/** Retry-After (seconds) of a sync refused for want of a slot or time. */
export const SYNC_RETRY_AFTER_SECONDS = 10;

/** Every slot is taken and the queue is full, or the wait for a slot ran out. */
export class SyncBusyError extends Error {
  constructor() {
    super("every sync slot is busy");
    this.name = "SyncBusyError";
  }
}

/** The sync ran past its deadline; what it had begun to write was rolled back. */
export class SyncDeadlineError extends Error {
  constructor(options?: { cause?: unknown }) {
    super("the sync ran past its deadline", options);
    this.name = "SyncDeadlineError";
  }
}

/** One deadline across a whole sync (or a bulk sync's every account). */
export class SyncDeadline {
  private readonly expiresAt: number;
  /** Aborts in-flight upstream requests when the deadline passes. */
  readonly signal: AbortSignal;

  constructor(milliseconds: number) {
    this.expiresAt = Date.now() + milliseconds;
    const controller = new AbortController();
    setTimeout(() => controller.abort(new SyncDeadlineError()), milliseconds).unref();
    this.signal = controller.signal;
    // An upstream that retries waits only while the wait ends before this deadline.
    registerDeadline(this.signal, () => this.remainingMs());
  }

  get expired(): boolean {
    return this.signal.aborted || Date.now() >= this.expiresAt;
  }

  remainingMs(): number {
    return Math.max(0, this.expiresAt - Date.now());
  }

  /** Throws SyncDeadlineError once the deadline has passed. */
  check(): void {
    if (this.expired) throw new SyncDeadlineError();
  }
}

/** A deadline of `SYNC_DEADLINE_SECONDS` from now. */
export function startSyncDeadline(): SyncDeadline {
  return new SyncDeadline(getEnv().sync.deadlineSeconds * 1000);
}

/** Lets pending I/O (other requests) run between slices of CPU work. */
export const yieldToEventLoop = (): Promise<void> => setImmediate();

/** Whose turn it is to do CPU work: the end of the queue of syncs waiting for it. */
const cpuTurn = ((
  globalThis as { bankConnectSyncCpu?: { tail: Promise<void> } }
).bankConnectSyncCpu ??= { tail: Promise.resolve() });

/** The longest a slice of a sync's CPU work keeps the event loop. */
export const CPU_SLICE_MS = 10;

/**
 * Runs `work` on every item, in slices of at most about CPU_SLICE_MS with
 * the event loop free in between, one sync at a time: the syncs' CPU work
 * is done in turn rather than interleaved (the total is the same on one
 * event loop), so a turn of the loop carries at most one slice of it, and
 * each of a request's round trips waits behind at most one slice.
 */
export async function inCpuSlices<T, R>(
  items: readonly T[],
  work: (item: T) => R,
  deadline: SyncDeadline,
): Promise<R[]> {
  const previous = cpuTurn.tail;
  let done!: () => void;
  cpuTurn.tail = new Promise<void>((resolve) => (done = resolve));
  await previous;
  try {
    deadline.check();
    const results: R[] = [];
    let sliceStart = performance.now();
    for (const item of items) {
      results.push(work(item));
      if (performance.now() - sliceStart >= CPU_SLICE_MS) {
        await yieldToEventLoop();
        deadline.check();
        sliceStart = performance.now();
      }
    }
    return results;
  } finally {
    done();
  }
}

interface Waiter {
  grant(): void;
}

/**
 * The slots of this process. On globalThis: every route handler that syncs
 * (and Next's dev-mode reloads) must count against the same slots.
 */
const slots = ((
  globalThis as { bankConnectSyncSlots?: { running: number; waiting: Waiter[] } }
).bankConnectSyncSlots ??= { running: 0, waiting: [] });

/** How many syncs of this process wait for a slot now. */
export const syncsWaitingForSlot = (): number => slots.waiting.length;

function release(): void {
  const next = slots.waiting.shift();
  if (next) next.grant();
  else slots.running -= 1;
}

function acquire(onWait?: () => void): Promise<void> {
  const limit = getEnv().sync.concurrency;
  if (slots.running < limit) {
    slots.running += 1;
    return Promise.resolve();
  }
  onWait?.();
  if (slots.waiting.length >= limit * WAITING_PER_SLOT) return Promise.reject(new SyncBusyError());
  return new Promise((resolve, reject) => {
    const waiter: Waiter = {
      grant() {
        clearTimeout(timer);
        resolve();
      },
    };
    const timer = setTimeout(() => {
      slots.waiting.splice(slots.waiting.indexOf(waiter), 1);
      reject(new SyncBusyError());
    }, SYNC_QUEUE_WAIT_MS);
    slots.waiting.push(waiter);
  });
}

/**
 * Runs `work` in a sync slot (a released slot passes straight to the next
 * waiter). Throws SyncBusyError when no slot frees up in time. `onWait` is
 * called when no slot is free at once.
 */
export async function inSyncSlot<T>(
  work: () => Promise<T>,
  options: { onWait?: () => void } = {},
): Promise<T> {
  await acquire(options.onWait);
  try {
    return await work();
  } finally {
    release();
  }
}
