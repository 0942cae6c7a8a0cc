import { describe, expect, it } from "vitest";
import { fromAcceptLanguage, fromUiLocales, negotiateLocale, toSupportedLocale } from "./locales";

describe("ui_locales (/docs/flow)", () => {
  it("takes the first supported primary subtag, case-insensitively", () => {
    expect(fromUiLocales("xx-YY DA-dk en")).toBe("da");
    expect(fromUiLocales("en-GB sv")).toBe("en");
  });
  it("ignores unsupported values entirely", () => {
    expect(fromUiLocales("zz ja-JP")).toBeNull();
    expect(fromUiLocales("")).toBeNull();
    expect(fromUiLocales(undefined)).toBeNull();
  });
  it("maps Norwegian tags to Bokmål", () => {
    expect(toSupportedLocale("no-NO")).toBe("nb");
    expect(toSupportedLocale("nb")).toBe("nb");
  });
});

describe("Accept-Language", () => {
  it("ranks by q-value, then by order", () => {
    expect(fromAcceptLanguage("ja;q=0.9, fi;q=0.5, de;q=0.8")).toBe("de");
    expect(fromAcceptLanguage("pt-BR,pt;q=0.9")).toBe("pt");
  });
  it("skips q=0 and garbage", () => {
    expect(fromAcceptLanguage("fr;q=0, ;;, nl")).toBe("nl");
    expect(fromAcceptLanguage("*")).toBeNull();
  });
});

describe("negotiateLocale (docs/architecture.md#languages)", () => {
  it("prefers ui_locales over everything", () => {
    expect(
      negotiateLocale({
        uiLocales: "it",
        userChoice: "de",
        partnerDefault: "fr",
        acceptLanguage: "es",
      }),
    ).toBe("it");
  });
  it("falls through user choice, partner default, Accept-Language, then en", () => {
    expect(negotiateLocale({ userChoice: "de", partnerDefault: "fr" })).toBe("de");
    expect(negotiateLocale({ partnerDefault: "fr", acceptLanguage: "es" })).toBe("fr");
    expect(negotiateLocale({ acceptLanguage: "es-ES" })).toBe("es");
    expect(negotiateLocale({ userChoice: "klingon" })).toBe("en");
  });
});
