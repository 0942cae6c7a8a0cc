import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import { describe, expect, it } from "vitest";
import { locales } from "./locales";
import { loadMessages } from "./messages";

/** Every leaf of a catalogue, keyed by its dotted path. */
function leaves(value: unknown, prefix = ""): Map<string, unknown> {
  const found = new Map<string, unknown>();
  if (typeof value !== "object" || value === null) return found.set(prefix, value);
  for (const [key, child] of Object.entries(value)) {
    for (const [path, leaf] of leaves(child, prefix ? `${prefix}.${key}` : key))
      found.set(path, leaf);
  }
  return found;
}

/** The ICU arguments a message uses, with their kind (plain, plural, select …). */
function argumentsOf(message: string): string[] {
  const found = new Set<string>();
  const walk = (elements: MessageFormatElement[]) => {
    for (const element of elements) {
      if (element.type === TYPE.argument) found.add(`${element.value}:argument`);
      if (
        element.type === TYPE.number ||
        element.type === TYPE.date ||
        element.type === TYPE.time
      ) {
        found.add(`${element.value}:${TYPE[element.type]}`);
      }
      if (element.type === TYPE.plural || element.type === TYPE.select) {
        found.add(`${element.value}:${TYPE[element.type]}`);
        for (const option of Object.values(element.options)) walk(option.value);
      }
      if (element.type === TYPE.tag) walk(element.children);
    }
  };
  walk(parse(message));
  return [...found].sort();
}

describe("message catalogues (every screen and mail in 12 languages)", () => {
  it("every locale has exactly the English keys, none empty", async () => {
    const english = leaves(await loadMessages("en"));
    for (const locale of locales) {
      const translated = leaves(await loadMessages(locale));
      expect([...translated.keys()].sort(), locale).toEqual([...english.keys()].sort());
      for (const [path, value] of translated) {
        expect(typeof value === "string" && value.trim().length > 0, `${locale} ${path}`).toBe(
          true,
        );
      }
    }
  });

  it("every message parses as ICU and uses the same arguments as English", async () => {
    const english = leaves(await loadMessages("en"));
    for (const locale of locales) {
      const translated = leaves(await loadMessages(locale));
      for (const [path, source] of english) {
        const target = translated.get(path);
        if (typeof source !== "string" || typeof target !== "string") continue;
        expect(argumentsOf(target), `${locale} ${path}`).toEqual(argumentsOf(source));
      }
    }
  });

  it("plural messages have an `other` branch in every locale", async () => {
    for (const locale of locales) {
      for (const [path, message] of leaves(await loadMessages(locale))) {
        if (typeof message !== "string") continue;
        const check = (elements: MessageFormatElement[]) => {
          for (const element of elements) {
            if (element.type === TYPE.plural) {
              expect(Object.keys(element.options), `${locale} ${path}`).toContain("other");
              for (const option of Object.values(element.options)) check(option.value);
            }
          }
        };
        check(parse(message));
      }
    }
  });
});
