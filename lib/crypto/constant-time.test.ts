import { describe, expect, it } from "vitest";
import { timingSafeEqualString } from "./constant-time";

describe("timingSafeEqualString", () => {
  it("is true for equal strings", () => {
    expect(timingSafeEqualString("abc123", "abc123")).toBe(true);
    expect(timingSafeEqualString("", "")).toBe(true);
  });

  it("is false for strings that differ in one character", () => {
    expect(timingSafeEqualString("abc123", "abc124")).toBe(false);
    expect(timingSafeEqualString("Abc123", "abc123")).toBe(false);
  });

  it("is false, without throwing, for strings of different lengths", () => {
    expect(timingSafeEqualString("abc", "abcd")).toBe(false);
    expect(timingSafeEqualString("", "a")).toBe(false);
  });

  it("compares non-ASCII strings by their UTF-8 bytes", () => {
    expect(timingSafeEqualString("é", "é")).toBe(true);
    expect(timingSafeEqualString("é", "e\u0301")).toBe(false);
  });
});
