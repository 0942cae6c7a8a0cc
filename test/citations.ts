import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

/**
 * Every reference in the repository must be one a reader of the repository
 * can open: an RFC, a `docs/<name>.md` file (and, with `#anchor`, one of its
 * headings), or a partner docs page `/docs/<page>` that app/docs serves.
 * Citations of working documents that live outside the repository (its early
 * specification, wire contract, design and style notes) are refused.
 */

export interface CitationProblem {
  line: number;
  text: string;
  why: string;
}

// Spelled in pieces so that this file does not cite them itself.
const SPEC = "SP" + "EC";
const CONTRACT = "CON" + "TRACT";
const DESIGN = "DES" + "IGN";
const STYLE = "STY" + "LE";

const WORKING_DOCUMENT = new RegExp(
  [
    `\\b(?:${SPEC}|${CONTRACT}|${DESIGN}|${STYLE})\\.md\\b`,
    `\\b${SPEC}\\s*§?\\s*\\d+(?:\\.\\d+)*`,
    `\\b(?:${CONTRACT}|${DESIGN}|${STYLE})\\s*§\\s*\\d*(?:\\.\\d+)*`,
    `\\b${STYLE}\\s+rule\\s+\\d`,
    "/work/" + "shared\\b",
  ].join("|"),
  "g",
);

/** `docs/<name>.md[#anchor]`, not as part of a longer path (app/docs/…, lib/docs/…). */
const REPO_DOC = /(?<![\w./-])docs\/([a-z0-9-]+)\.md(?:#([a-z0-9-]+))?/g;
/** A docs page's relative link to its sibling: `](name.md#anchor)`. */
const SIBLING_DOC = /\]\(([a-z0-9-]+)\.md(?:#([a-z0-9-]+))?\)/g;
/** `/docs/<page>`, not as part of a longer path or address. */
const DOCS_PAGE = /(?<![\w.-])\/docs\/([a-z0-9][a-z0-9-]*)(?![\w.-]*\.(?:md|tsx?|json)\b)/g;

/** Files that list unknown paths on purpose (the fuzzer's 404 probes). */
const PROBES_UNKNOWN_PATHS = new Set(["scripts/fuzz/corpus-pages.ts"]);

/** GitHub's heading anchor: lower case, punctuation dropped, spaces as dashes. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const line of markdown.split("\n")) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading?.[1]) anchors.add(headingAnchor(heading[1]));
  }
  return anchors;
}

/** What a checked text may refer to: the repository's files, read on demand. */
export interface Repository {
  hasDocsPage(page: string): boolean;
  /** The markdown of docs/<name>.md, or null when there is no such file. */
  readDoc(name: string): string | null;
}

export function repositoryAt(root: string): Repository {
  const docs = new Map<string, string | null>();
  return {
    hasDocsPage: (page) => existsSync(path.join(root, "app", "docs", page, "page.tsx")),
    readDoc(name) {
      if (!docs.has(name)) {
        const file = path.join(root, "docs", `${name}.md`);
        docs.set(name, existsSync(file) ? readFileSync(file, "utf8") : null);
      }
      return docs.get(name) ?? null;
    },
  };
}

function checkDocReference(
  repo: Repository,
  name: string,
  anchor: string | undefined,
): string | null {
  const markdown = repo.readDoc(name);
  if (markdown === null) return `docs/${name}.md does not exist`;
  if (anchor && !anchorsOf(markdown).has(anchor)) {
    return `docs/${name}.md has no heading #${anchor}`;
  }
  return null;
}

/**
 * The problems in one file's text. `file` is its path in the repository; a
 * file under docs/ may also link its siblings by bare name.
 */
export function findCitationProblems(text: string, repo: Repository, file = ""): CitationProblem[] {
  const problems: CitationProblem[] = [];
  const lines = text.split("\n");
  lines.forEach((lineText, index) => {
    const report = (why: string) => problems.push({ line: index + 1, text: lineText.trim(), why });
    for (const match of lineText.matchAll(WORKING_DOCUMENT)) {
      report(`cites "${match[0]}", a document outside the repository`);
    }
    for (const match of lineText.matchAll(REPO_DOC)) {
      const why = checkDocReference(repo, match[1] ?? "", match[2]);
      if (why) report(why);
    }
    if (file.startsWith("docs/")) {
      for (const match of lineText.matchAll(SIBLING_DOC)) {
        const why = checkDocReference(repo, match[1] ?? "", match[2]);
        if (why) report(why);
      }
    }
    if (PROBES_UNKNOWN_PATHS.has(file)) return;
    for (const match of lineText.matchAll(DOCS_PAGE)) {
      const page = match[1] ?? "";
      if (!repo.hasDocsPage(page)) report(`/docs/${page} is not a page of app/docs`);
    }
  });
  return problems;
}

/** The lockfile, and this checker's own test, which plants broken references on purpose. */
const SKIPPED = new Set(["package-lock.json", "test/citations.test.ts"]);

/** Every tracked text file's problems, as `file:line: why — text`. */
export function findRepositoryCitationProblems(root: string): string[] {
  const files = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((file) => file && !SKIPPED.has(file) && !file.startsWith("node_modules/"));
  const repo = repositoryAt(root);
  const found: string[] = [];
  for (const file of files) {
    const full = path.join(root, file);
    if (!existsSync(full)) continue;
    const bytes = readFileSync(full);
    if (bytes.includes(0)) continue;
    for (const problem of findCitationProblems(bytes.toString("utf8"), repo, file)) {
      found.push(`${file}:${problem.line}: ${problem.why} — ${problem.text}`);
    }
  }
  return found;
}
