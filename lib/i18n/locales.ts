/** The 12 languages of every screen and mail (defaultLanguage, docs/protocol.md#branding). */
export const locales = [
  "da",
  "de",
  "en",
  "es",
  "fi",
  "fr",
  "it",
  "nb",
  "nl",
  "pl",
  "pt",
  "sv",
] as const;

export type Locale = (typeof locales)[number];

export const defaultLocale: Locale = "en";

export function isLocale(value: unknown): value is Locale {
  return typeof value === "string" && (locales as readonly string[]).includes(value);
}

/** Primary subtag, case-insensitive: `da-DK` → `da`; `no` is Norwegian Bokmål. */
export function toSupportedLocale(tag: string): Locale | null {
  const primary = tag.trim().split(/[-_]/)[0]?.toLowerCase() ?? "";
  const candidate = primary === "no" || primary === "nn" ? "nb" : primary;
  return isLocale(candidate) ? candidate : null;
}

/** The first supported locale of a space-separated `ui_locales` (/docs/flow). */
export function fromUiLocales(uiLocales: string | null | undefined): Locale | null {
  for (const tag of (uiLocales ?? "").split(/\s+/)) {
    if (!tag) continue;
    const locale = toSupportedLocale(tag);
    if (locale) return locale;
  }
  return null;
}

/** The best supported locale of an Accept-Language header, by q-value. */
export function fromAcceptLanguage(header: string | null | undefined): Locale | null {
  const ranked = (header ?? "")
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q ? Number.parseFloat(q.slice(2)) : 1;
      return { tag, weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((entry) => entry.tag && entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of ranked) {
    const locale = toSupportedLocale(tag);
    if (locale) return locale;
  }
  return null;
}

/**
 * Per docs/architecture.md#languages, ui_locales → the user's choice → the partner's default →
 * Accept-Language → en.
 */
export function negotiateLocale(sources: {
  uiLocales?: string | null;
  userChoice?: string | null;
  partnerDefault?: string | null;
  acceptLanguage?: string | null;
}): Locale {
  return (
    fromUiLocales(sources.uiLocales) ??
    (isLocale(sources.userChoice) ? sources.userChoice : null) ??
    (isLocale(sources.partnerDefault) ? sources.partnerDefault : null) ??
    fromAcceptLanguage(sources.acceptLanguage) ??
    defaultLocale
  );
}
