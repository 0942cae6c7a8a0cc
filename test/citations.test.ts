import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  findCitationProblems,
  findRepositoryCitationProblems,
  headingAnchor,
  type Repository,
} from "./citations";

const root = path.resolve(import.meta.dirname, "..");

/** A repository with docs/security.md (two headings) and the /docs/token page. */
const sample: Repository = {
  hasDocsPage: (page) => page === "token",
  readDoc: (name) =>
    name === "security" ? "# Security rules\n\n## What the server holds\n\n## Logs\n" : null,
};

// Spelled in pieces so that this file does not cite them itself.
const SPEC = "SP" + "EC";
const CONTRACT = "CON" + "TRACT";
const DESIGN = "DES" + "IGN";
const STYLE = "STY" + "LE";

describe("references a reader of the repository can open", () => {
  it("finds no citation of a document the repository does not have", () => {
    expect(findRepositoryCitationProblems(root)).toEqual([]);
  });

  it("catches a planted citation of a working document outside the repository", () => {
    const planted = [
      `/** Codes are single use (${SPEC} 3.1). */`,
      `// ${CONTRACT} §8.2 step 7: the fixed offsets.`,
      `describe("sign-in (${DESIGN}.md §6.2)", () => {});`,
      `// Keyed by a code (${STYLE}.md rule 4).`,
      `See ${CONTRACT}.md for the wire shapes.`,
    ].join("\n");
    const problems = findCitationProblems(planted, sample, "lib/x.ts");
    expect(problems.map((p) => p.line)).toEqual([1, 2, 3, 4, 5]);
    expect(problems[0]?.why).toBe(`cites "${SPEC} 3.1", a document outside the repository`);
  });

  it("catches a docs/<name>.md reference whose file or heading does not exist", () => {
    const text = [
      "see docs/security.md and docs/security.md#what-the-server-holds",
      "see docs/threat-model.md",
      "see docs/security.md#no-such-heading",
      "[Logs](security.md#logs) and [missing](nowhere.md)",
    ].join("\n");
    expect(findCitationProblems(text, sample, "docs/protocol.md")).toEqual([
      { line: 2, text: "see docs/threat-model.md", why: "docs/threat-model.md does not exist" },
      {
        line: 3,
        text: "see docs/security.md#no-such-heading",
        why: "docs/security.md has no heading #no-such-heading",
      },
      {
        line: 4,
        text: "[Logs](security.md#logs) and [missing](nowhere.md)",
        why: "docs/nowhere.md does not exist",
      },
    ]);
  });

  it("catches a /docs/<page> reference that app/docs does not serve", () => {
    const text = 'href="/docs/token" and (/docs/webhooks); app/docs/flow/page.tsx is a path';
    expect(findCitationProblems(text, sample).map((p) => p.why)).toEqual([
      "/docs/webhooks is not a page of app/docs",
    ]);
  });

  it("accepts RFCs and references that resolve", () => {
    const text = "(RFC 6749 §4.1.2; docs/security.md#logs, /docs/token)";
    expect(findCitationProblems(text, sample)).toEqual([]);
  });

  it("makes heading anchors as GitHub does", () => {
    expect(headingAnchor("Parse, don't validate")).toBe("parse-dont-validate");
    expect(headingAnchor("What the server holds")).toBe("what-the-server-holds");
  });
});
