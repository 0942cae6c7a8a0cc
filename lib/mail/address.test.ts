import { describe, expect, it } from "vitest";
import { emailSchema, normalizeEmail } from "./address";

describe("normalizeEmail", () => {
  it("trims surrounding whitespace", () => {
    expect(normalizeEmail("  ada@example.com\n")).toBe("ada@example.com");
  });

  it("lower-cases", () => {
    expect(normalizeEmail("Ada.Lovelace@Example.COM")).toBe("ada.lovelace@example.com");
  });

  it("applies NFKC (full-width and compatibility characters fold)", () => {
    expect(normalizeEmail("ａｄａ@ｅｘａｍｐｌｅ.ｃｏｍ")).toBe("ada@example.com");
    expect(normalizeEmail("jose\u0301@example.com")).toBe("jos\u00e9@example.com");
  });

  it("is idempotent", () => {
    const once = normalizeEmail(" ＡＤＡ@Example.com ");
    expect(normalizeEmail(once)).toBe(once);
  });
});

describe("emailSchema", () => {
  it("returns the normalized address", () => {
    expect(emailSchema.parse(" Demo@Example.com ")).toBe("demo@example.com");
  });

  it.each(["", "   ", "no-at-sign", "a@", "@example.com", "a b@example.com"])(
    "refuses %j",
    (raw) => {
      expect(emailSchema.safeParse(raw).success).toBe(false);
    },
  );
});
