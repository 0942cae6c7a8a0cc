import { createHmac, hkdfSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { getEnv } from "../env";
import { keyedHash } from "./keyed-hash";

const KEY_A = "a".repeat(32);
const KEY_B = "b".repeat(32);

describe("keyedHash", () => {
  it("is 64 lower-case hex characters", () => {
    expect(keyedHash("client-secret", "obs_x", KEY_A)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is deterministic for the same purpose, value and key", () => {
    expect(keyedHash("api-key", "ebk_1", KEY_A)).toBe(keyedHash("api-key", "ebk_1", KEY_A));
  });

  it("is HMAC-SHA256 under the HKDF sub-key of the purpose", () => {
    const subKey = Buffer.from(
      hkdfSync("sha256", KEY_A, "bank-connect/keyed-hash/v1", "keyed-hash:pin", 32),
    );
    const expected = createHmac("sha256", subKey).update("123456").digest("hex");
    expect(keyedHash("pin", "123456", KEY_A)).toBe(expected);
  });

  it("separates purposes: a hash made for one purpose differs from another's", () => {
    expect(keyedHash("client-secret", "v", KEY_A)).not.toBe(keyedHash("api-key", "v", KEY_A));
    expect(keyedHash("pin", "v", KEY_A)).not.toBe(keyedHash("uid", "v", KEY_A));
  });

  it("depends on the secret key", () => {
    expect(keyedHash("uid", "v", KEY_A)).not.toBe(keyedHash("uid", "v", KEY_B));
    // The cache must not return the first key's sub-key for the second.
    expect(keyedHash("uid", "v", KEY_A)).toBe(keyedHash("uid", "v", KEY_A));
  });

  it("is not a bare HMAC with the secret key itself", () => {
    const bare = createHmac("sha256", KEY_A).update("v").digest("hex");
    expect(keyedHash("client-secret", "v", KEY_A)).not.toBe(bare);
  });

  it("uses the configured SECRET_KEY by default", () => {
    expect(keyedHash("api-key", "v")).toBe(keyedHash("api-key", "v", getEnv().secretKey));
  });
});
