import { createHash } from "node:crypto";
import type { Redis as IORedis } from "ioredis";

/**
 * The slice of @upstash/redis that @upstash/ratelimit calls, over ioredis, so
 * the same limiter runs on a self-hosted Redis (docs/architecture.md#stack).
 *
 * Stock Redis rejects the `#!lua flags=allow-key-locking` shebang the library
 * puts on its scripts, so scripts are run without it. The library addresses
 * scripts by the SHA-1 of the original text; this adapter remembers which
 * stripped script each of those hashes stands for.
 */

const SHEBANG = /^#!lua[^\n]*\n/;

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex");

export class IORedisUpstashAdapter {
  /** Library hash (of the original script) → SHA-1 of the stripped script. */
  private readonly scriptHashes = new Map<string, string>();

  constructor(
    private readonly client: IORedis,
    private readonly connectTimeoutMs = 1000,
  ) {}

  /** Waits briefly for a connection in progress; commands fail fast otherwise. */
  private async ready(): Promise<void> {
    if (this.client.status === "ready") return;
    if (
      this.client.status !== "connecting" &&
      this.client.status !== "connect" &&
      this.client.status !== "wait"
    )
      return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.connectTimeoutMs);
      this.client.once("ready", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async eval(script: string, keys: string[], args: unknown[]): Promise<unknown> {
    const stripped = script.replace(SHEBANG, "");
    this.scriptHashes.set(sha1(script), sha1(stripped));
    await this.ready();
    return this.client.eval(stripped, keys.length, ...keys, ...args.map(toRedisArg));
  }

  async evalsha(hash: string, keys: string[], args: unknown[]): Promise<unknown> {
    const mapped = this.scriptHashes.get(hash);
    // Unknown to this process: the library answers NOSCRIPT by calling eval().
    if (!mapped) throw new Error("NOSCRIPT No matching script (not yet loaded by this process)");
    await this.ready();
    return this.client.evalsha(mapped, keys.length, ...keys, ...args.map(toRedisArg));
  }

  async get(key: string): Promise<string | null> {
    await this.ready();
    return this.client.get(key);
  }

  async set(key: string, value: unknown): Promise<string | null> {
    await this.ready();
    return this.client.set(key, toRedisArg(value));
  }
}

function toRedisArg(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
