import { z } from "zod";

/**
 * Redirect URI registration rules (docs/protocol.md#redirect-uris): at most 10 per client; each at
 * most 2048 characters, absolute, https:// (http:// only on loopback), no
 * fragment, no credentials. Matching on authorize is exact, character for
 * character (docs/security.md), so URIs are validated but never normalized: what
 * is registered is what the browser is sent to.
 */

export const MAX_REDIRECT_URIS = 10;
export const MAX_REDIRECT_URI_LENGTH = 2048;

/** Every rule, with the plain-English sentence that explains a refusal. */
export const REDIRECT_URI_RULES = {
  required: "at least one redirect URI is required",
  too_many: `at most ${MAX_REDIRECT_URIS} redirect URIs are allowed per client`,
  duplicate: "is listed more than once",
  too_long: `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`,
  whitespace: "must not contain spaces or control characters",
  backslash: "must not contain backslashes",
  not_absolute: "is not an absolute URL (expected https://host/path)",
  scheme:
    "must use https:// (other schemes, such as javascript: or custom app schemes, are refused)",
  http_not_loopback: "http:// is only allowed for loopback hosts (localhost, 127.0.0.1, [::1])",
  credentials: "must not contain credentials (user:password@)",
  fragment: "must not contain a fragment (#)",
} as const satisfies Record<string, string>;

export type RedirectUriRule = keyof typeof REDIRECT_URI_RULES;

export interface RedirectUriProblem {
  /** The offending URI; null when the list as a whole is at fault. */
  uri: string | null;
  rule: RedirectUriRule;
  /** One line, naming the URI and the rule. */
  message: string;
}

export type RedirectUrisResult =
  { success: true; data: string[] } | { success: false; problems: RedirectUriProblem[] };

/** Validates a client's whole list; every problem found is reported. */
export function parseRedirectUris(list: readonly string[]): RedirectUrisResult {
  // A duplicated bad URI is explained once, not once per copy.
  const problems = [...findListProblems(list), ...[...new Set(list)].flatMap(findUriProblems)];
  return problems.length === 0 ? { success: true, data: [...list] } : { success: false, problems };
}

/** The zod form of parseRedirectUris, for edges that parse a whole body with zod. */
export const redirectUrisSchema = z.array(z.string()).transform((list, ctx) => {
  const result = parseRedirectUris(list);
  if (result.success) return result.data;
  for (const problem of result.problems) {
    ctx.addIssue({
      code: "custom",
      message: problem.message,
      params: { rule: problem.rule, uri: problem.uri },
    });
  }
  return z.NEVER;
});

function findListProblems(list: readonly string[]): RedirectUriProblem[] {
  if (list.length === 0) return [toProblem(null, "required")];
  const problems: RedirectUriProblem[] = [];
  const surplus = list[MAX_REDIRECT_URIS];
  if (surplus !== undefined) {
    problems.push(
      toProblem(
        surplus,
        "too_many",
        `redirect URI number ${MAX_REDIRECT_URIS + 1} of ${list.length}`,
      ),
    );
  }
  const seen = new Set<string>();
  for (const uri of list) {
    // Matching is exact (docs/protocol.md#redirect-uris), so duplicates are exact-string duplicates.
    if (seen.has(uri)) problems.push(toProblem(uri, "duplicate"));
    seen.add(uri);
  }
  return problems;
}

/** The first rule a single URI breaks, or none. */
function findUriProblems(uri: string): RedirectUriProblem[] {
  const rule = URI_CHECKS.find(([, breaks]) => breaks(uri))?.[0];
  return rule ? [toProblem(uri, rule)] : [];
}

type UriCheck = readonly [RedirectUriRule, (uri: string) => boolean];

/** Checked in this order; later checks may assume the earlier ones passed. */
const URI_CHECKS: readonly UriCheck[] = [
  ["too_long", (uri) => uri.length > MAX_REDIRECT_URI_LENGTH],
  // The URL parser silently strips or removes these, so the parsed URL would
  // differ from the registered string that is matched exactly.
  ["whitespace", (uri) => /[\s\u0000-\u001f\u007f]/.test(uri)],
  // Parsers disagree on "\" (WHATWG reads it as "/" in http(s) URLs).
  ["backslash", (uri) => uri.includes("\\")],
  ["not_absolute", (uri) => !URL.canParse(uri)],
  ["scheme", (uri) => !isHttpScheme(new URL(uri).protocol)],
  // "https:host/path" parses, but a browser resolves it relative to the page.
  ["not_absolute", (uri) => !/^https?:\/\//i.test(uri)],
  ["credentials", hasCredentials],
  // Even an empty "#": RFC 6749 §3.1.2 forbids a fragment component.
  ["fragment", (uri) => uri.includes("#")],
  ["http_not_loopback", (uri) => isPlainHttpToRemoteHost(new URL(uri))],
];

function isHttpScheme(protocol: string): boolean {
  return protocol === "https:" || protocol === "http:";
}

/** Userinfo, even an empty one ("https://@host/"), is refused. */
function hasCredentials(uri: string): boolean {
  const url = new URL(uri);
  if (url.username !== "" || url.password !== "") return true;
  const authority = uri.replace(/^https?:\/\//i, "").split(/[/?#]/, 1)[0] ?? "";
  return authority.includes("@");
}

function isPlainHttpToRemoteHost(url: URL): boolean {
  return url.protocol === "http:" && !isLoopbackHost(url.hostname);
}

/** Loopback (docs/protocol.md#redirect-uris): localhost, 127.0.0.0/8, [::1] (hostnames as the URL parser normalizes them). */
export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === "localhost" ||
    hostname === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

function toProblem(uri: string | null, rule: RedirectUriRule, detail?: string): RedirectUriProblem {
  const sentence = detail ? `${detail}: ${REDIRECT_URI_RULES[rule]}` : REDIRECT_URI_RULES[rule];
  return { uri, rule, message: uri === null ? sentence : `${quoteUri(uri)}: ${sentence}` };
}

const QUOTED_URI_MAX = 120;

/** JSON quoting keeps the message on one line; very long URIs are shortened. */
function quoteUri(uri: string): string {
  const shown = uri.length > QUOTED_URI_MAX ? `${uri.slice(0, QUOTED_URI_MAX)}…` : uri;
  return JSON.stringify(shown);
}
