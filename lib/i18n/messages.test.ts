import { describe, expect, it } from "vitest";
import { locales } from "./locales";
import { loadMessages } from "./messages";

function keyPaths(value: unknown, prefix = ""): string[] {
  if (typeof value !== "object" || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, child]) =>
    keyPaths(child, prefix ? `${prefix}.${key}` : key),
  );
}

function leaves(value: unknown): unknown[] {
  if (typeof value !== "object" || value === null) return [value];
  return Object.values(value).flatMap(leaves);
}

describe("message catalogues", () => {
  it("every locale has exactly the English keys", async () => {
    const english = keyPaths(await loadMessages("en")).sort();
    for (const locale of locales) {
      expect(keyPaths(await loadMessages(locale)).sort(), locale).toEqual(english);
    }
  });

  it("no translation is empty", async () => {
    for (const locale of locales) {
      for (const leaf of leaves(await loadMessages(locale))) {
        expect(typeof leaf === "string" && leaf.trim().length > 0, locale).toBe(true);
      }
    }
  });
});
