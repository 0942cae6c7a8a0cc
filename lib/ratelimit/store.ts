import type { RateLimitPolicy } from "./policies";

/** Outcome of one counted request. */
export interface RateLimitResult {
  allowed: boolean;
  /** Whole seconds until the window resets (for Retry-After). */
  retryAfterSeconds: number;
}

/**
 * A fixed-window counter store: the window is aligned to multiples of its
 * length since the epoch, identically in every store, so any number of app
 * processes sharing a store share one count.
 */
export interface RateLimitStore {
  readonly name: string;
  hit(bucket: string, policy: RateLimitPolicy, now: number): Promise<RateLimitResult>;
}

export function windowOf(
  policy: RateLimitPolicy,
  now: number,
): { index: number; resetsAt: number } {
  const length = policy.windowSeconds * 1000;
  const index = Math.floor(now / length);
  return { index, resetsAt: (index + 1) * length };
}

export function retryAfter(resetsAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetsAt - now) / 1000));
}
