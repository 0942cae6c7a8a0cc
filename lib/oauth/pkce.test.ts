import { describe, expect, it } from "vitest";
import { isWellFormedS256Challenge, toS256Challenge, verifiesS256 } from "./pkce";

// RFC 7636 Appendix B, the vector the SDKs test against too.
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

describe("PKCE S256", () => {
  it("matches the RFC 7636 Appendix B vector", () => {
    expect(toS256Challenge(VERIFIER)).toBe(CHALLENGE);
    expect(verifiesS256(VERIFIER, CHALLENGE)).toBe(true);
  });

  it("refuses a different verifier", () => {
    expect(verifiesS256(`${VERIFIER.slice(0, -1)}A`, CHALLENGE)).toBe(false);
  });

  it("refuses a plain-method downgrade (verifier equal to challenge)", () => {
    expect(verifiesS256(CHALLENGE, CHALLENGE)).toBe(false);
  });

  it("refuses malformed verifiers and challenges", () => {
    expect(verifiesS256("short", CHALLENGE)).toBe(false);
    expect(verifiesS256(`${VERIFIER}!`, CHALLENGE)).toBe(false);
    expect(isWellFormedS256Challenge(`${CHALLENGE}=`)).toBe(false);
    expect(isWellFormedS256Challenge("c456")).toBe(false);
  });
});
