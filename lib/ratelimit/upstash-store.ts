import { Ratelimit } from "@upstash/ratelimit";
import type { RateLimitPolicy } from "./policies";
import { retryAfter, type RateLimitResult, type RateLimitStore } from "./store";

/**
 * @upstash/ratelimit's fixed window over any client that speaks its Redis
 * subset: Upstash's REST client, or a self-hosted Redis through the ioredis
 * adapter. Its windows are aligned to the epoch like the memory store's.
 */
export class UpstashRateLimitStore implements RateLimitStore {
  private readonly limiters = new Map<string, Ratelimit>();

  constructor(
    readonly name: string,
    private readonly redis: ConstructorParameters<typeof Ratelimit>[0]["redis"],
    private readonly timeoutMs: number,
    /** The deployment's key prefix (rateLimitPrefix in limiter.ts). */
    private readonly prefix: string,
  ) {}

  private limiterFor(policy: RateLimitPolicy): Ratelimit {
    const key = `${policy.limit}/${policy.windowSeconds}`;
    let limiter = this.limiters.get(key);
    if (!limiter) {
      limiter = new Ratelimit({
        redis: this.redis,
        limiter: Ratelimit.fixedWindow(policy.limit, `${policy.windowSeconds} s`),
        prefix: `${this.prefix}:ratelimit`,
        analytics: false,
        // Fail open: a slow store lets the request through (the caller logs it).
        timeout: this.timeoutMs,
      });
      this.limiters.set(key, limiter);
    }
    return limiter;
  }

  async hit(bucket: string, policy: RateLimitPolicy, now: number): Promise<RateLimitResult> {
    const result = await this.limiterFor(policy).limit(bucket);
    if (result.reason === "timeout") throw new Error(`${this.name} rate-limit store timed out`);
    return { allowed: result.success, retryAfterSeconds: retryAfter(result.reset, now) };
  }
}
