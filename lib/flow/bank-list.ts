/**
 * The bank picker's list, shared by the server's rendering and the
 * browser's search as you type (so both show the same thing): which country
 * to show first, which banks are popular there, how a bank looks without a
 * logo, and how the list is filtered and grouped. No server imports: the
 * picker's client component uses this module too.
 */

export type PickerPsuType = "personal" | "business";

export interface PickerBank {
  name: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  psuTypes: PickerPsuType[];
  /** A bank that exists only to reproduce failures (the sandbox's scenario banks). */
  testOnly: boolean;
  popular: boolean;
  /** Already connected by this person: marked so in every list, never offered under Popular. */
  connected: boolean;
  /** Up to two letters for the badge. */
  initials: string;
  /** One of BADGE_TONES badge colours, stable per bank. */
  tone: number;
}

/** The remembered country of the last bank picked in this browser. */
export const LAST_COUNTRY_COOKIE = "bc_bank_country";

/** The country a flow's language suggests; none for English, spoken everywhere. */
const COUNTRY_OF_LOCALE: Record<string, string> = {
  da: "DK",
  de: "DE",
  es: "ES",
  fi: "FI",
  fr: "FR",
  it: "IT",
  nb: "NO",
  nl: "NL",
  pl: "PL",
  pt: "PT",
  sv: "SE",
};

/**
 * The country the picker opens on: the one asked for (empty: every country),
 * else the browser's last pick, else the language's, else every country;
 * only ever a country that has banks.
 */
export function presetCountry(options: {
  asked: string | undefined;
  lastPick: string | undefined;
  locale: string;
  countries: readonly string[];
}): string {
  const { asked, lastPick, locale, countries } = options;
  if (asked !== undefined) return countries.includes(asked) ? asked : "";
  for (const candidate of [lastPick, COUNTRY_OF_LOCALE[locale]]) {
    if (candidate && countries.includes(candidate)) return candidate;
  }
  return "";
}

/**
 * The banks most people of a country use, first in the picker when that
 * country is chosen: the largest retail banks by customers, and the
 * sandbox's full-service banks.
 */
const POPULAR: Record<string, readonly string[]> = {
  DK: [
    "Danske Bank",
    "Nordea",
    "Jyske Bank",
    "Nykredit",
    "Sydbank",
    "Lunar",
    "Sandbox Nordbank DK",
  ],
  SE: ["Swedbank", "Handelsbanken", "SEB", "Nordea", "Länsförsäkringar", "Sandbox Sparbank SE"],
  NO: ["DNB", "SpareBank 1", "Nordea", "Handelsbanken", "Sandbox Fjordbank NO"],
  FI: ["OP", "Nordea", "Danske Bank", "S-Pankki", "Aktia", "Sandbox Saaristopankki FI"],
  DE: ["Sparkasse", "Deutsche Bank", "Commerzbank", "ING", "DKB", "N26", "Sandbox Sparkasse DE"],
  NL: ["ING", "Rabobank", "ABN AMRO", "bunq", "Sandbox Polderbank NL"],
};

export function isPopular(name: string, country: string): boolean {
  return (POPULAR[country] ?? []).includes(name);
}

/** Words that tell nothing about which bank it is. */
const NOISE = new Set(["sandbox", "bank", "the"]);

/** "Sandbox Nordbank DK" → "NO", "Danske Bank" → "DB", "N26" → "N2". */
export function initialsOf(name: string, country: string): string {
  const words = name
    .replace(/[^\p{L}\p{N}\s]/gu, " ")
    .split(/\s+/)
    .filter((word) => word && !NOISE.has(word.toLowerCase()) && word !== country);
  const [first = name, second] = words;
  const letters = second ? `${first[0] ?? ""}${second[0] ?? ""}` : first.slice(0, 2);
  return letters.toUpperCase();
}

/** How many badge colours the stylesheet defines (`.bank-badge.tone-0` …). */
export const BADGE_TONES = 6;

export function toneOf(name: string): number {
  let hash = 0;
  for (const character of name) hash = (hash * 31 + (character.codePointAt(0) ?? 0)) >>> 0;
  return hash % BADGE_TONES;
}

export interface PickerQuery {
  q: string;
  /** Empty: every country. */
  country: string;
  psuType: PickerPsuType;
}

export interface PickerGroups {
  /** The country's popular banks not yet connected (only with a country chosen and no search). */
  popular: PickerBank[];
  /** Every other match, by name. */
  banks: PickerBank[];
  /** Test-only banks that match. */
  scenarios: PickerBank[];
}

/** Lower case without accents, so "osuus" finds "Osuuspankki" and "ae" does not need "æ". */
export const searchable = (text: string) =>
  text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();

/** A bank already connected is not offered again as a suggestion; it stays in the full list. */
const offeredAsPopular = (bank: PickerBank) => bank.popular && !bank.connected;

export function groupBanks(
  banks: readonly PickerBank[],
  query: PickerQuery,
  countryName: (code: string) => string,
): PickerGroups {
  const words = searchable(query.q).split(/\s+/).filter(Boolean);
  const matches = banks.filter((bank) => {
    if (query.country && bank.country !== query.country) return false;
    if (!bank.psuTypes.includes(query.psuType)) return false;
    const text = searchable(`${bank.name} ${countryName(bank.country)} ${bank.country}`);
    return words.every((word) => text.includes(word));
  });
  const byName = (a: PickerBank, b: PickerBank) => a.name.localeCompare(b.name);
  const regular = matches.filter((bank) => !bank.testOnly).sort(byName);
  const showPopular = Boolean(query.country) && words.length === 0;
  return {
    popular: showPopular ? regular.filter(offeredAsPopular) : [],
    banks: showPopular ? regular.filter((bank) => !offeredAsPopular(bank)) : regular,
    scenarios: matches.filter((bank) => bank.testOnly).sort(byName),
  };
}
