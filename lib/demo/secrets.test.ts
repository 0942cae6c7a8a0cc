import { describe, expect, it } from "vitest";
import { demoHash, openFromStorage, openStoredOrNull, sealForStorage } from "./secrets";

describe("the demo partner's secrets", () => {
  it("seals what it stores and opens it again; tampering fails", () => {
    const sealed = sealForStorage("obs_secret");
    expect(sealed).not.toContain("obs_secret");
    expect(openFromStorage(sealed)).toBe("obs_secret");
    const bytes = Buffer.from(sealed, "base64url");
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    expect(() => openFromStorage(bytes.toString("base64url"))).toThrow();
    expect(openStoredOrNull(bytes.toString("base64url"))).toBeNull();
  });

  it("keys its hashes per purpose", () => {
    expect(demoHash("state", "x")).toMatch(/^[0-9a-f]{64}$/);
    expect(demoHash("state", "x")).not.toBe(demoHash("browser", "x"));
  });
});
