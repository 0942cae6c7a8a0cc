import { describe, expect, it } from "vitest";
import { contrastRatio, readableTextOn, toScreenBranding } from "./branding";

const partner = {
  name: "Acme Budget",
  displayName: null,
  logoHash: null,
  accentColor: null,
  supportUrl: null,
  termsUrl: null,
  privacyUrl: null,
  purpose: null,
};

describe("screen branding (docs/protocol.md#branding)", () => {
  it("falls back to the partner's name, then the client's, and the service's own look", () => {
    expect(toScreenBranding(partner, "Client")).toMatchObject({
      name: "Acme Budget",
      accentColor: null,
      logoUrl: null,
    });
    expect(toScreenBranding(null, "House app").name).toBe("House app");
    expect(toScreenBranding({ ...partner, displayName: "Acme" }, "Client").name).toBe("Acme");
  });

  it("serves the logo from our host by content hash", () => {
    const logo = { logoHash: "ab12", logo: { contentType: "image/png" } };
    expect(toScreenBranding({ ...partner, ...logo }, "C").logoUrl).toBe("/logos/ab12.png");
  });

  it("picks a readable text colour for any accent (WCAG AA for large text at least)", () => {
    for (const accent of [
      "#ffff00",
      "#000080",
      "#1f5eff",
      "#777777",
      "#00ff00",
      "#ff0000",
      "#ffffff",
      "#000000",
    ]) {
      const text = readableTextOn(accent);
      expect(contrastRatio(accent, text), accent).toBeGreaterThanOrEqual(3);
    }
    expect(readableTextOn("#ffff00")).toBe("#000000");
    expect(readableTextOn("#000080")).toBe("#ffffff");
  });

  it("ignores a malformed accent colour", () => {
    expect(toScreenBranding({ ...partner, accentColor: "red" }, "C").accentColor).toBeNull();
  });
});
