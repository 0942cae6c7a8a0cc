import { describe, expect, it } from "vitest";
import { groupBanks, initialsOf, presetCountry, type PickerBank } from "./bank-list";

const bank = (name: string, country: string, extra: Partial<PickerBank> = {}): PickerBank => ({
  name,
  country,
  psuTypes: ["personal", "business"],
  testOnly: false,
  popular: false,
  connected: false,
  initials: initialsOf(name, country),
  tone: 0,
  ...extra,
});

const BANKS = [
  bank("Sandbox Nordbank DK", "DK", { popular: true }),
  bank("Sandbox Andelskasse DK", "DK", { psuTypes: ["personal"] }),
  bank("Sandbox Handelsbank DK", "DK", { psuTypes: ["business"] }),
  bank("Sandbox Scenario DK: bank error", "DK", { testOnly: true }),
  bank("Sandbox Osuuspankki FI", "FI"),
  bank("Sandbox Sparkasse DE", "DE", { popular: true }),
];
const names: Record<string, string> = { DK: "Denmark", FI: "Finland", DE: "Deutschland" };
const countryName = (code: string) => names[code] ?? code;
const named = (list: PickerBank[]) => list.map((entry) => entry.name);

describe("the country the picker opens on", () => {
  const countries = ["DE", "DK", "FI"];

  it("follows the language, and for English shows every country", () => {
    expect(presetCountry({ asked: undefined, lastPick: undefined, locale: "de", countries })).toBe(
      "DE",
    );
    expect(presetCountry({ asked: undefined, lastPick: undefined, locale: "fi", countries })).toBe(
      "FI",
    );
    expect(presetCountry({ asked: undefined, lastPick: undefined, locale: "en", countries })).toBe(
      "",
    );
    // A language whose country has no banks: every country.
    expect(presetCountry({ asked: undefined, lastPick: undefined, locale: "sv", countries })).toBe(
      "",
    );
  });

  it("prefers the browser's last pick, and what the address asks for over both", () => {
    expect(presetCountry({ asked: undefined, lastPick: "FI", locale: "de", countries })).toBe("FI");
    expect(presetCountry({ asked: "DK", lastPick: "FI", locale: "de", countries })).toBe("DK");
    expect(presetCountry({ asked: "", lastPick: "FI", locale: "de", countries })).toBe("");
    expect(presetCountry({ asked: "XX", lastPick: "FI", locale: "de", countries })).toBe("");
    expect(presetCountry({ asked: undefined, lastPick: "XX", locale: "de", countries })).toBe("DE");
  });
});

describe("grouping the banks", () => {
  it("puts the country's popular banks first and the test scenarios apart", () => {
    const groups = groupBanks(BANKS, { q: "", country: "DK", psuType: "personal" }, countryName);
    expect(named(groups.popular)).toEqual(["Sandbox Nordbank DK"]);
    expect(named(groups.banks)).toEqual(["Sandbox Andelskasse DK"]);
    expect(named(groups.scenarios)).toEqual(["Sandbox Scenario DK: bank error"]);
  });

  it("does not offer a bank already connected under Popular; it stays in the list, marked", () => {
    const connected = BANKS.map((entry) =>
      entry.name === "Sandbox Nordbank DK" ? { ...entry, connected: true } : entry,
    );
    const groups = groupBanks(
      connected,
      { q: "", country: "DK", psuType: "personal" },
      countryName,
    );
    expect(groups.popular).toEqual([]);
    expect(groups.banks.map(({ name, connected }) => [name, connected])).toEqual([
      ["Sandbox Andelskasse DK", false],
      ["Sandbox Nordbank DK", true],
    ]);
  });

  it("searches names and countries, without accents or case, every word", () => {
    const all = { country: "", psuType: "personal" as const };
    expect(named(groupBanks(BANKS, { ...all, q: "OSUUS" }, countryName).banks)).toEqual([
      "Sandbox Osuuspankki FI",
    ]);
    expect(named(groupBanks(BANKS, { ...all, q: "deutsch" }, countryName).banks)).toEqual([
      "Sandbox Sparkasse DE",
    ]);
    expect(named(groupBanks(BANKS, { ...all, q: "sandbox finland" }, countryName).banks)).toEqual([
      "Sandbox Osuuspankki FI",
    ]);
    // A search shows one flat list, the popular banks included.
    expect(groupBanks(BANKS, { ...all, q: "nord" }, countryName).popular).toEqual([]);
  });

  it("shows only the banks that serve the chosen kind of customer", () => {
    const business = groupBanks(BANKS, { q: "", country: "DK", psuType: "business" }, countryName);
    expect(named([...business.popular, ...business.banks])).toEqual([
      "Sandbox Nordbank DK",
      "Sandbox Handelsbank DK",
    ]);
  });
});

describe("initials", () => {
  it("skip the words that do not tell banks apart", () => {
    expect(initialsOf("Sandbox Nordbank DK", "DK")).toBe("NO");
    expect(initialsOf("Danske Bank", "DK")).toBe("DA");
    expect(initialsOf("ABN AMRO", "NL")).toBe("AA");
    expect(initialsOf("Sandbox Scenario DK: bank error", "DK")).toBe("SE");
  });
});
