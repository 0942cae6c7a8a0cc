import { describe, expect, it } from "vitest";
import { parseBrandingRecord } from "./branding-record";

const NO_DOMAIN = { registeredDomain: null };
const full = {
  displayName: "Acme Budget",
  logoUrl: "https://cdn.acme.example/logo.png",
  accentColor: "#1D4ED8",
  supportUrl: "https://acme.example/support",
  termsUrl: "https://www.acme.example/terms",
  privacyUrl: "https://acme.example/privacy?lang=en",
  purpose: "Budgeting from your bank transactions.",
  defaultLanguage: "da",
};

describe("the branding record (docs/protocol.md#branding)", () => {
  it("accepts a full record, normalizing the colour", () => {
    const parsed = parseBrandingRecord(full, { registeredDomain: "acme.example" });
    expect(parsed).toEqual({ ok: true, record: { ...full, accentColor: "#1d4ed8" } });
  });

  it("stores each URL as the normalized form it was validated in", () => {
    const open = parseBrandingRecord(
      {
        supportUrl: "HTTPS://Acme.EXAMPLE:443/help center",
        termsUrl: "https://bücher.example/./terms/../agb",
        privacyUrl: "https://acme.example",
        logoUrl: "https://CDN.acme.example:443/logo.png?size=2",
      },
      NO_DOMAIN,
    );
    expect(open).toEqual({
      ok: true,
      record: expect.objectContaining({
        supportUrl: "https://acme.example/help%20center",
        termsUrl: "https://xn--bcher-kva.example/agb",
        privacyUrl: "https://acme.example/",
        logoUrl: "https://cdn.acme.example/logo.png?size=2",
      }),
    });
  });

  it("checks the length limit on the normalized URL", () => {
    // 2048 characters as typed, but each space becomes %20 when normalized.
    const prefix = "https://acme.example/";
    const typed = `${prefix}${"a ".repeat((2048 - prefix.length - 1) / 2)}a`;
    expect(typed).toHaveLength(2048);
    expect(parseBrandingRecord({ supportUrl: typed }, NO_DOMAIN)).toEqual({
      ok: false,
      violations: [
        {
          field: "supportUrl",
          code: "too_long",
          message: "supportUrl must be at most 2048 characters",
        },
      ],
    });
  });

  it("clears every field that is omitted, null or blank", () => {
    const parsed = parseBrandingRecord({ displayName: "  ", purpose: null }, NO_DOMAIN);
    expect(parsed).toEqual({
      ok: true,
      record: {
        displayName: null,
        logoUrl: null,
        accentColor: null,
        supportUrl: null,
        termsUrl: null,
        privacyUrl: null,
        purpose: null,
        defaultLanguage: null,
      },
    });
  });

  it.each([
    [
      { displayName: "x".repeat(81) },
      "displayName",
      "too_long",
      "displayName must be at most 80 characters",
    ],
    [
      { supportUrl: "http://acme.example/s" },
      "supportUrl",
      "https_url",
      "supportUrl must be an https:// URL",
    ],
    [
      { termsUrl: "https://user:pw@acme.example/t" },
      "termsUrl",
      "credentials",
      "termsUrl must not contain credentials",
    ],
    [
      { privacyUrl: "https://acme.example/p#top" },
      "privacyUrl",
      "fragment",
      "privacyUrl must not contain a fragment (#…)",
    ],
    [
      { logoUrl: "/relative.png" },
      "logoUrl",
      "https_url",
      "logoUrl must be an absolute https:// URL",
    ],
    [
      { logoUrl: `https://acme.example/${"a".repeat(2048)}` },
      "logoUrl",
      "too_long",
      "logoUrl must be at most 2048 characters",
    ],
    [{ purpose: "p".repeat(281) }, "purpose", "too_long", "purpose must be at most 280 characters"],
    [{ purpose: "two\nlines" }, "purpose", "one_line", "purpose must be one line"],
    [{ accentColor: "blue" }, "accentColor", "colour", "accentColor must be a colour as #rrggbb"],
    [{ accentColor: "#12345" }, "accentColor", "colour", "accentColor must be a colour as #rrggbb"],
    [
      { defaultLanguage: "ru" },
      "defaultLanguage",
      "language",
      "defaultLanguage must be one of da, de, en, es, fi, fr, it, nb, nl, pl, pt, sv",
    ],
    [{ displayName: 42 }, "displayName", "invalid_type", "displayName must be a string or null"],
    [
      { tagline: "x" },
      "tagline",
      "unknown_field",
      expect.stringContaining("is not a branding field"),
    ],
  ])("refuses %j naming %s (%s)", (body, field, code, message) => {
    expect(parseBrandingRecord(body, NO_DOMAIN)).toEqual({
      ok: false,
      violations: [{ field, code, message }],
    });
  });

  it("keeps links under the pinned registered domain, refusing look-alikes", () => {
    const pinned = { registeredDomain: "acme.example" };
    for (const url of [
      "https://evil.example/x",
      "https://acme.example.evil.example/",
      "https://notacme.example/",
    ]) {
      expect(parseBrandingRecord({ supportUrl: url }, pinned)).toEqual({
        ok: false,
        violations: [
          {
            field: "supportUrl",
            code: "outside_domain",
            message: "supportUrl must be under the registered domain acme.example",
          },
        ],
      });
    }
    expect(parseBrandingRecord({ supportUrl: "https://help.acme.example/" }, pinned).ok).toBe(true);
  });

  it("reports every violation at once", () => {
    const parsed = parseBrandingRecord(
      { displayName: "x".repeat(81), accentColor: "red", purpose: "a\nb" },
      NO_DOMAIN,
    );
    expect(parsed.ok ? [] : parsed.violations.map((v) => v.field)).toEqual([
      "displayName",
      "accentColor",
      "purpose",
    ]);
  });

  it("keeps the current logo when its served path is sent back", () => {
    const path = "/logos/abc.png";
    const parsed = parseBrandingRecord(
      { logoUrl: path },
      { registeredDomain: null, keepLogoPath: path },
    );
    expect(parsed.ok && parsed.record.logoUrl).toBe(path);
  });

  it("refuses a body that is not an object", () => {
    expect(parseBrandingRecord([1], NO_DOMAIN)).toEqual({
      ok: false,
      violations: [{ field: "body", code: "invalid_body", message: "must be a JSON object" }],
    });
  });
});
