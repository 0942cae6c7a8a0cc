import type { RateLimitPolicy } from "./policies";
import { retryAfter, windowOf, type RateLimitResult, type RateLimitStore } from "./store";

/**
 * In-process counters for a single local instance (development, tests). Not
 * shared between processes: production configures Redis or Upstash.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly name = "memory";
  private readonly counts = new Map<string, { index: number; count: number }>();

  async hit(bucket: string, policy: RateLimitPolicy, now: number): Promise<RateLimitResult> {
    const { index, resetsAt } = windowOf(policy, now);
    const entry = this.counts.get(bucket);
    const count = entry && entry.index === index ? entry.count + 1 : 1;
    this.counts.set(bucket, { index, count });
    if (this.counts.size > 50_000) this.prune(index);
    return { allowed: count <= policy.limit, retryAfterSeconds: retryAfter(resetsAt, now) };
  }

  private prune(currentIndex: number) {
    for (const [bucket, entry] of this.counts) {
      if (entry.index < currentIndex) this.counts.delete(bucket);
    }
  }
}
