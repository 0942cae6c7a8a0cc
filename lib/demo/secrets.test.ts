import { describe, expect, it } from "vitest";
import { toDemoClientSecret } from "../../scripts/lib/seed";
import { getEnv } from "../env";
import { demoClientSecret, demoHash, openFromStorage, sealForStorage } from "./secrets";

describe("the demo partner's secrets", () => {
  it("uses the client secret the seed gives the demo client in local mode", () => {
    expect(demoClientSecret()).toBe(toDemoClientSecret(getEnv().secretKey));
  });

  it("seals what it stores and opens it again; tampering fails", () => {
    const sealed = sealForStorage("ebk_secret_key");
    expect(sealed).not.toContain("ebk_secret_key");
    expect(openFromStorage(sealed)).toBe("ebk_secret_key");
    const bytes = Buffer.from(sealed, "base64url");
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    expect(() => openFromStorage(bytes.toString("base64url"))).toThrow();
  });

  it("keys its hashes per purpose", () => {
    expect(demoHash("state", "x")).toMatch(/^[0-9a-f]{64}$/);
    expect(demoHash("state", "x")).not.toBe(demoHash("browser", "x"));
  });
});
