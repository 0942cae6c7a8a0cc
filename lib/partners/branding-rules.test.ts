import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BRANDING_FIELDS, isHexColor } from "./branding-rules";
import { BrandingRecordWire } from "./schemas";

/** Every TypeScript source under `dir` (tests excluded). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .filter((entry) => !/\.test\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe("branding rules", () => {
  it("accepts #rrggbb in either case and nothing else", () => {
    for (const good of ["#1d4ed8", "#1D4ED8", "#000000"]) expect(isHexColor(good)).toBe(true);
    for (const bad of ["1d4ed8", "#12345", "#1234567", "#12345g", "blue", " #1d4ed8"])
      expect(isHexColor(bad)).toBe(false);
  });

  it("lists exactly the fields of the branding record on the wire", () => {
    expect([...BRANDING_FIELDS].sort()).toEqual(Object.keys(BrandingRecordWire.shape).sort());
  });

  it("is the only place the colour rule and the branding field list are written", () => {
    const owner = join("lib", "partners", "branding-rules.ts");
    const offenders = [...sources("lib"), ...sources("app")]
      .filter((file) => file !== owner)
      .filter((file) => {
        const text = readFileSync(file, "utf8");
        return /#\[0-9a-f(A-F)?\]\{6\}/.test(text) || /BRANDING_FIELDS\s*=/.test(text);
      });
    expect(offenders).toEqual([]);
  });
});
