import { describe, expect, it } from "vitest";
import { randomAlphanumeric, randomToken } from "./random";

describe("randomToken", () => {
  it("is base64url without padding of 32 bytes by default", () => {
    const token = randomToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, "base64url")).toHaveLength(32);
  });

  it("encodes the requested number of bytes", () => {
    expect(Buffer.from(randomToken(16), "base64url")).toHaveLength(16);
    expect(randomToken(3)).toHaveLength(4);
  });

  it("differs on every call", () => {
    const tokens = new Set(Array.from({ length: 100 }, () => randomToken()));
    expect(tokens.size).toBe(100);
  });

  it("refuses a non-positive or fractional size", () => {
    expect(() => randomToken(0)).toThrow(RangeError);
    expect(() => randomToken(1.5)).toThrow(RangeError);
  });
});

describe("randomAlphanumeric", () => {
  it("has exactly the requested length of [0-9A-Za-z]", () => {
    for (const length of [1, 24, 100]) {
      expect(randomAlphanumeric(length)).toMatch(new RegExp(`^[0-9A-Za-z]{${length}}$`));
    }
  });

  it("uses the whole alphabet (no character is unreachable)", () => {
    const seen = new Set(randomAlphanumeric(20_000));
    expect(seen.size).toBe(62);
  });

  it("refuses a non-positive length", () => {
    expect(() => randomAlphanumeric(0)).toThrow(RangeError);
  });
});
