import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { formatDateTime } from "./date-time";
import { locales } from "./locales";
import { loadMessages } from "./messages";

const AT = new Date("2026-11-27T13:05:00Z");

/** Every message of a catalogue, keyed by its dotted path. */
function messagesOf(value: unknown, prefix = ""): [string, string][] {
  if (typeof value === "string") return [[prefix, value]];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    messagesOf(child, prefix ? `${prefix}.${key}` : key),
  );
}

/** The date and time arguments a message formats itself. */
function dateOrTimeArguments(elements: MessageFormatElement[]): string[] {
  return elements.flatMap((element) => {
    if (element.type === TYPE.date || element.type === TYPE.time) return [element.value];
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      return Object.values(element.options).flatMap((option) => dateOrTimeArguments(option.value));
    }
    if (element.type === TYPE.tag) return dateOrTimeArguments(element.children);
    return [];
  });
}

describe("date and time with the zone", () => {
  it("says the date, the time and the zone in every locale, the date once", () => {
    for (const locale of locales) {
      const text = formatDateTime(locale, AT, "Europe/Helsinki");
      // 15:05 in Helsinki (3:05 PM in English).
      expect(text, locale).toMatch(/\b(15|3)[:.]05\b/);
      expect(text, locale).toMatch(/2026/);
      expect(text.match(/2026/g), locale).toHaveLength(1);
      // The zone is named: an abbreviation or an offset from GMT/UTC.
      expect(text, locale).toMatch(/GMT|UTC|EET|OEZ|[+−-]\d/);
      expect(formatDateTime(locale, AT, "UTC"), locale).toMatch(/\b(13|1)[:.]05\b.*(UTC|GMT)/);
    }
  });

  it("an ISO text formats as its Date does; a value that is no date shows a dash", () => {
    expect(formatDateTime("de", AT.toISOString(), "UTC")).toBe(formatDateTime("de", AT, "UTC"));
    expect(formatDateTime("de", "not a date", "UTC")).toBe("—");
  });

  it("no message formats a date or time itself (precompiled, `{at, time}` beside `{at, date}` shows the date twice)", async () => {
    for (const locale of locales) {
      for (const [path, message] of messagesOf(await loadMessages(locale))) {
        expect(dateOrTimeArguments(parse(message)), `${locale} ${path}`).toEqual([]);
      }
    }
  });
});
