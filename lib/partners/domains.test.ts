import { describe, expect, it } from "vitest";
import { MAX_DOMAIN_LENGTH, parseRegisteredDomain } from "./domains";
import { PartnerError } from "./errors";

function problemOf(raw: string): string {
  try {
    parseRegisteredDomain(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(PartnerError);
    expect((error as PartnerError).code).toBe("invalid_domain");
    return (error as PartnerError).message;
  }
  throw new Error(`${JSON.stringify(raw)} was accepted`);
}

describe("parseRegisteredDomain", () => {
  it.each([
    ["acme.example", "acme.example"],
    ["  Acme.EXAMPLE ", "acme.example"],
    ["budget-app.co.uk", "budget-app.co.uk"],
    ["a1.b2.example", "a1.b2.example"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["3com.example", "3com.example"],
  ])("accepts %j as %j (trimmed, lower-cased)", (raw, stored) => {
    expect(parseRegisteredDomain(raw)).toBe(stored);
  });

  it.each(["", "   "])("reads the blank value %j as no pinned domain (null)", (raw) => {
    expect(parseRegisteredDomain(raw)).toBeNull();
  });

  it("accepts a name of exactly 253 characters and refuses 254", () => {
    const label = "a".repeat(63);
    const name253 = [label, label, label, "a".repeat(58), "ex"].join(".");
    expect(name253).toHaveLength(MAX_DOMAIN_LENGTH);
    expect(parseRegisteredDomain(name253)).toBe(name253);
    expect(problemOf(`a${name253}`)).toContain("must be at most 253 characters");
  });

  it.each<[string, string]>([
    ["https://acme.example", "without a scheme"],
    ["acme.example/support", "without a path"],
    ["acme.example?x=1", "without a path, query or fragment"],
    ["acme.example#top", "without a path, query or fragment"],
    ["user@acme.example", "without credentials"],
    ["acme.example:8443", "without a port"],
    ["acme .example", "must not contain spaces"],
    ["bücher.example", "xn-- form"],
    ["localhost", "at least two labels"],
    ["acme.", "must not have empty labels"],
    [".acme.example", "must not have empty labels"],
    ["acme..example", "must not have empty labels"],
    [`${"a".repeat(64)}.example`, "longer than 63 characters"],
    ["-acme.example", "letters, digits and hyphens"],
    ["acme-.example", "letters, digits and hyphens"],
    ["acme_app.example", "letters, digits and hyphens"],
    ["*.acme.example", "letters, digits and hyphens"],
    ["192.168.1.10", "IP addresses are not allowed"],
    ["acme.123", "not a number"],
  ])("refuses %j (%s)", (raw, message) => {
    const line = problemOf(raw);
    expect(line).toMatch(/^the registered domain ".*" /);
    expect(line).toContain(message);
  });
});
