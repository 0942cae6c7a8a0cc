/**
 * How long until an abort signal fires on its own. A sync's deadline
 * (lib/banking/budget.ts) registers its signal here when it makes it, so an
 * upstream that waits between attempts of a request (a retry,
 * docs/sync-failures.md#retries) can tell before it waits whether the wait
 * still ends in time, and give up at once when it would not. The signal
 * stays the one thing a read is given: a caller that passes no signal, or
 * another signal, has no known deadline.
 */

const deadlines = new WeakMap<AbortSignal, () => number>();

/** Records that `signal` fires once `remainingMs()` reaches 0. */
export function registerDeadline(signal: AbortSignal, remainingMs: () => number): void {
  deadlines.set(signal, remainingMs);
}

/** Milliseconds left before `signal` fires: 0 once it has, Infinity when nobody said. */
export function timeLeftMs(signal: AbortSignal | undefined): number {
  if (!signal) return Number.POSITIVE_INFINITY;
  if (signal.aborted) return 0;
  const remainingMs = deadlines.get(signal);
  return remainingMs ? Math.max(0, remainingMs()) : Number.POSITIVE_INFINITY;
}
