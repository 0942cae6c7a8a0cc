import { describe, expect, it } from "vitest";
import { toSafeReturnPath } from "./return-url";

const ISSUER = "http://localhost:3000";

describe("return URLs after sign-in (no open redirect)", () => {
  it("keeps paths and absolute URLs of this origin", () => {
    expect(toSafeReturnPath("/oauth/authorize?client_id=x", ISSUER)).toBe(
      "/oauth/authorize?client_id=x",
    );
    expect(toSafeReturnPath(`${ISSUER}/consent`, ISSUER)).toBe("/consent");
  });

  it("refuses other origins in every spelling", () => {
    for (const url of [
      "https://evil.example/",
      "//evil.example/path",
      "/\\evil.example",
      "http://localhost:3001/",
      "https://localhost:3000/",
      "javascript:alert(1)",
      "http://localhost:3000@evil.example/",
    ]) {
      const result = toSafeReturnPath(url, ISSUER);
      expect(result === null || (result.startsWith("/") && !result.startsWith("//")), url).toBe(
        true,
      );
      if (result) expect(new URL(result, ISSUER).origin).toBe(ISSUER);
    }
  });

  it("answers null for nothing", () => {
    expect(toSafeReturnPath(null, ISSUER)).toBeNull();
    expect(toSafeReturnPath("", ISSUER)).toBeNull();
  });
});
