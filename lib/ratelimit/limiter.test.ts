import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { Redis as IORedis } from "ioredis";
import { getEnv, rawSetting, setSetting } from "../env";
import {
  countRequest,
  rateLimitPrefix,
  rateLimitStore,
  redisStore,
  replaceRateLimitStore,
} from "./limiter";
import { MemoryRateLimitStore } from "./memory-store";
import { policyFor, RATE_LIMIT_POLICIES } from "./policies";
import type { RateLimitStore } from "./store";
import { atWindowStart } from "../../test/rate-windows";

const run = promisify(execFile);
const redisUrl = rawSetting("REDIS_URL");
const MINUTE = 60_000;
const freshIp = () =>
  `198.51.100.${randomBytes(2).readUInt16BE() % 250}-${randomBytes(4).toString("hex")}`;

async function burst(store: RateLimitStore, policy: "authorize" | "api", ip: string, n: number) {
  const results = [];
  for (let i = 0; i < n; i += 1) results.push(await countRequest(policy, ip, store));
  return results;
}

describe("rate-limit policies (/docs/errors)", () => {
  it("limits authorize and cancel to 50 and the API to 300 per minute", () => {
    expect(RATE_LIMIT_POLICIES.authorize).toEqual({ limit: 50, windowSeconds: 60 });
    expect(RATE_LIMIT_POLICIES.cancel).toEqual({ limit: 50, windowSeconds: 60 });
    expect(RATE_LIMIT_POLICIES.api).toEqual({ limit: 300, windowSeconds: 60 });
    expect(RATE_LIMIT_POLICIES.account).toEqual({ limit: 30, windowSeconds: 60 });
  });

  it("maps requests to policies and leaves token, revoke and userinfo unlimited", () => {
    expect(policyFor("GET", "/oauth/authorize")).toBe("authorize");
    expect(policyFor("POST", "/oauth/authorize")).toBe("authorize");
    expect(policyFor("POST", "/oauth/cancel")).toBe("cancel");
    expect(policyFor("GET", "/api/accounts")).toBe("api");
    expect(policyFor("GET", "/api/partner/me")).toBe("api");
    expect(policyFor("POST", "/oauth/token")).toBeNull();
    expect(policyFor("POST", "/oauth/revoke")).toBeNull();
    expect(policyFor("GET", "/oauth/userinfo")).toBeNull();
    expect(policyFor("GET", "/apix")).toBeNull();
  });

  it("counts My access's actions, not its reads", () => {
    expect(policyFor("POST", "/account/access/end")).toBe("account");
    expect(policyFor("POST", "/account/passkeys/anything")).toBe("account");
    expect(policyFor("DELETE", "/account/passkeys/abc")).toBe("account");
    expect(policyFor("PUT", "/account/key")).toBe("account");
    // The panel's list, a page under /account/ and the page itself are reads.
    expect(policyFor("GET", "/account/passkeys")).toBeNull();
    expect(policyFor("HEAD", "/account/passkeys")).toBeNull();
    expect(policyFor("GET", "/account/deleted")).toBeNull();
    expect(policyFor("OPTIONS", "/account/keys")).toBeNull();
    expect(policyFor("GET", "/account")).toBeNull();
    expect(policyFor("POST", "/account")).toBeNull();
  });
});

describe("memory store", () => {
  it("refuses the 51st authorize request within a minute, with Retry-After seconds", async () => {
    const store = new MemoryRateLimitStore();
    const now = 10 * MINUTE + 5_000;
    const results = [];
    for (let i = 0; i < 51; i += 1)
      results.push(await countRequest("authorize", "192.0.2.1", store, now));
    expect(results.slice(0, 50).every((r) => r.allowed)).toBe(true);
    expect(results[50]).toEqual({ allowed: false, retryAfterSeconds: 55 });
  });

  it("counts each client address separately and starts afresh in the next window", async () => {
    const store = new MemoryRateLimitStore();
    const now = 20 * MINUTE;
    for (let i = 0; i < 50; i += 1) await countRequest("authorize", "192.0.2.1", store, now);
    expect((await countRequest("authorize", "192.0.2.1", store, now)).allowed).toBe(false);
    expect((await countRequest("authorize", "192.0.2.2", store, now)).allowed).toBe(true);
    expect((await countRequest("authorize", "192.0.2.1", store, now + MINUTE)).allowed).toBe(true);
  });

  it("gives the API its own, larger budget", async () => {
    const store = new MemoryRateLimitStore();
    const now = 30 * MINUTE;
    for (let i = 0; i < 300; i += 1) {
      expect((await countRequest("api", "192.0.2.9", store, now)).allowed).toBe(true);
    }
    expect((await countRequest("api", "192.0.2.9", store, now)).allowed).toBe(false);
  });
});

describe("failing open", () => {
  it("serves the request when the store throws", async () => {
    const broken: RateLimitStore = {
      name: "broken",
      hit: () => Promise.reject(new Error("connection refused")),
    };
    expect(await countRequest("authorize", "192.0.2.1", broken)).toEqual({
      allowed: true,
      retryAfterSeconds: 0,
    });
  });

  it("serves the request promptly when Redis is unreachable", async () => {
    // Port 1 on loopback: nothing listens, connections are refused.
    const store = redisStore("redis://127.0.0.1:1", 300);
    const started = Date.now();
    const result = await countRequest("authorize", "192.0.2.1", store);
    expect(result.allowed).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

// Needs a Redis server: .ci/run starts one and sets REDIS_URL.
describe.runIf(redisUrl)("Redis store (@upstash/ratelimit over ioredis)", () => {
  it("refuses the 51st authorize request within a minute", async () => {
    await atWindowStart();
    const store = redisStore(redisUrl ?? "");
    const results = await burst(store, "authorize", freshIp(), 51);
    expect(results.filter((r) => r.allowed)).toHaveLength(50);
    expect(results[50]?.allowed).toBe(false);
    expect(results[50]?.retryAfterSeconds).toBeGreaterThan(0);
    expect(results[50]?.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  it("refuses the 301st API request within a minute", async () => {
    await atWindowStart();
    const results = await burst(redisStore(redisUrl ?? ""), "api", freshIp(), 301);
    expect(results.filter((r) => r.allowed)).toHaveLength(300);
    expect(results[300]?.allowed).toBe(false);
  });

  it("holds the limit across two app processes sharing Redis", async () => {
    await atWindowStart();
    const ip = freshIp();
    const worker = () =>
      run(process.execPath, ["--import", "tsx", "test/fixtures/ratelimit-hits.ts", ip, "40"]).then(
        ({ stdout }) =>
          (JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { allowed: number }).allowed,
      );
    const [first, second] = await Promise.all([worker(), worker()]);
    expect((first ?? 0) + (second ?? 0)).toBe(50);
  });
});

describe("the deployment's key prefix", () => {
  it("is RATE_LIMIT_PREFIX, or derived from the issuer: one per deployment", () => {
    const staging = rateLimitPrefix({ issuer: "https://staging.connect.example" });
    const production = rateLimitPrefix({ issuer: "https://connect.example" });
    expect(staging).toMatch(/^bank-connect:[0-9a-f]{12}$/);
    expect(production).toMatch(/^bank-connect:[0-9a-f]{12}$/);
    expect(staging).not.toBe(production);
    expect(rateLimitPrefix({ issuer: "https://connect.example" })).toBe(production);
    expect(rateLimitPrefix({ issuer: "https://connect.example", rateLimitPrefix: "prod-eu" })).toBe(
      "prod-eu",
    );
  });
});

// Needs a Redis server: .ci/run starts one and sets REDIS_URL.
describe.runIf(redisUrl)("two deployments sharing one Redis", () => {
  const redis = new IORedis(redisUrl ?? "", { lazyConnect: true });
  afterAll(async () => {
    setSetting("RATE_LIMIT_PREFIX", "");
    replaceRateLimitStore(undefined);
    redis.disconnect();
  });

  it("count apart: one spending its budget leaves the other's untouched", async () => {
    await atWindowStart();
    const ip = freshIp();
    const staging = redisStore(
      redisUrl ?? "",
      undefined,
      rateLimitPrefix({ issuer: "https://staging.connect.example" }),
    );
    const production = redisStore(
      redisUrl ?? "",
      undefined,
      rateLimitPrefix({ issuer: "https://connect.example" }),
    );
    const spent = await burst(staging, "authorize", ip, 51);
    expect(spent.filter((r) => r.allowed)).toHaveLength(50);
    expect(spent[50]?.allowed).toBe(false);
    const other = await burst(production, "authorize", ip, 50);
    expect(other.every((r) => r.allowed)).toBe(true);
    expect((await countRequest("authorize", ip, production)).allowed).toBe(false);
  });

  it("writes every key of the configured store under the configured prefix", async () => {
    const ip = freshIp();
    setSetting("RATE_LIMIT_PREFIX", `test-${randomBytes(4).toString("hex")}`);
    replaceRateLimitStore(undefined);
    const prefix = rateLimitPrefix(getEnv());
    expect(prefix).toBe(rawSetting("RATE_LIMIT_PREFIX"));
    expect(rateLimitStore().name).toBe("redis");
    for (const policy of ["authorize", "api"] as const) await countRequest(policy, ip);
    const keys = await redis.keys(`*${ip}*`);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key.startsWith(`${prefix}:ratelimit:`), key).toBe(true);
  });
});
