import { createHash } from "node:crypto";
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis as IORedis } from "ioredis";
import { getEnv } from "../env";
import { log } from "../log";
import { IORedisUpstashAdapter } from "./ioredis-adapter";
import { MemoryRateLimitStore } from "./memory-store";
import { RATE_LIMIT_POLICIES, type RateLimitPolicyName } from "./policies";
import type { RateLimitResult, RateLimitStore } from "./store";
import { UpstashRateLimitStore } from "./upstash-store";

/**
 * Counts a request against its traffic policy. The store is chosen by
 * configuration: Upstash REST, a Redis server, or memory. If the store fails
 * or is slow, the request is served (fail-open) and the fault is logged: an
 * outage of the limiter must not become an outage of the service. That is
 * why no limit that guards a secret is counted here: those are in
 * lib/auth/sign-in-limits.ts and lib/auth/pin-budget.ts, in PostgreSQL.
 */

const STORE_TIMEOUT_MS = 500;

/**
 * The start of every key the limiter writes to Redis: RATE_LIMIT_PREFIX, or
 * `bank-connect:` and the first 12 hex digits of the issuer's SHA-256. Two
 * deployments sharing one Redis (staging and production) then count apart,
 * while every instance of one deployment shares its counts.
 */
export function rateLimitPrefix(env: { issuer: string; rateLimitPrefix?: string }): string {
  if (env.rateLimitPrefix) return env.rateLimitPrefix;
  return `bank-connect:${createHash("sha256").update(env.issuer).digest("hex").slice(0, 12)}`;
}

export type UpstashRedisClient = ConstructorParameters<typeof UpstashRateLimitStore>[1];

export function redisStore(
  url: string,
  timeoutMs = STORE_TIMEOUT_MS,
  prefix = rateLimitPrefix(getEnv()),
): UpstashRateLimitStore {
  const client = new IORedis(url, {
    lazyConnect: false,
    // Fail fast while disconnected instead of queueing behind a reconnect.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    // The counts of requests that arrive together go to Redis in one write.
    enableAutoPipelining: true,
  });
  client.on("error", (error: Error) =>
    log.warn("ratelimit.redis_error", { message: error.message }),
  );
  const adapter = new IORedisUpstashAdapter(client) as unknown as UpstashRedisClient;
  return new UpstashRateLimitStore("redis", adapter, timeoutMs, prefix);
}

function createStore(): RateLimitStore {
  const env = getEnv();
  if (env.upstash) {
    const client = new UpstashRedis({ url: env.upstash.url, token: env.upstash.token });
    return new UpstashRateLimitStore("upstash", client, STORE_TIMEOUT_MS, rateLimitPrefix(env));
  }
  if (env.redisUrl) return redisStore(env.redisUrl);
  return new MemoryRateLimitStore();
}

const globalForLimiter = globalThis as unknown as { bankConnectRateLimitStore?: RateLimitStore };

export function rateLimitStore(): RateLimitStore {
  globalForLimiter.bankConnectRateLimitStore ??= createStore();
  return globalForLimiter.bankConnectRateLimitStore;
}

/**
 * Puts `store` in place of the configured one for this process (undefined:
 * the configured one again, built at the next use). Tests break the store
 * with it to prove what does and does not depend on it.
 */
export function replaceRateLimitStore(store: RateLimitStore | undefined): void {
  globalForLimiter.bankConnectRateLimitStore = store;
}

export async function countRequest(
  policyName: RateLimitPolicyName,
  clientIp: string,
  store: RateLimitStore = rateLimitStore(),
  now = Date.now(),
): Promise<RateLimitResult> {
  const policy = RATE_LIMIT_POLICIES[policyName];
  try {
    return await store.hit(`${policyName}:${clientIp}`, policy, now);
  } catch (error) {
    log.warn("ratelimit.store_unavailable", { store: store.name, policy: policyName, error });
    return { allowed: true, retryAfterSeconds: 0 };
  }
}
