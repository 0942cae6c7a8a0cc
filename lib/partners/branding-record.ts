import { z } from "zod";
import type { BrandingRecordWire } from "./schemas";
import { isLocale, locales, type Locale } from "../i18n/locales";
import { normalizeNameText } from "./names";
import type { FieldViolation, ViolationCode } from "./violations";
import { fieldViolations, addViolation, type BodyDescription } from "./field-violations";
import { BRANDING_FIELDS, isHexColor, type BrandingField } from "./branding-rules";

/**
 * The branding record a partner writes (docs/protocol.md#branding, docs/protocol.md#partner-endpoints): the whole record at
 * once, every field optional, null or blank clearing it. Each violation is
 * named with its field so the dashboard can show it next to the input.
 */

export { BRANDING_FIELDS, type BrandingField };

/** The record as stored and answered (lib/partners/schemas.ts). */
export type BrandingRecord = z.infer<typeof BrandingRecordWire>;

export type BrandingViolation = FieldViolation;

export const MAX_DISPLAY_NAME = 80;
export const MAX_PURPOSE = 280;
export const MAX_URL = 2048;

const LINE_BREAK = /[\r\n\u2028\u2029\u0085]/;

/** Characters as a person counts them (code points, not UTF-16 units). */
const lengthOf = (text: string) => [...text].length;

export type UrlParse =
  { ok: true; url: string } | { ok: false; code: ViolationCode; problem: string };

/** A broken rule: its code and the English words after the field's name. */
type Problem = { code: ViolationCode; problem: string };

/**
 * The branding URL rules (absolute https, no credentials, no fragment, at
 * most MAX_URL characters), judged on the URL as the WHATWG URL standard
 * serializes it (lower-case host, punycode, default port dropped, dot
 * segments resolved, spaces percent-encoded): the form validated is the form
 * stored, answered and used.
 */
export function parseBrandingUrl(text: string): UrlParse {
  const addViolation = (code: ViolationCode, problem: string): UrlParse => ({
    ok: false,
    code,
    problem,
  });
  if (text.length > MAX_URL)
    return addViolation("too_long", `must be at most ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return addViolation("https_url", "must be an absolute https:// URL");
  }
  if (url.protocol !== "https:") return addViolation("https_url", "must be an https:// URL");
  if (url.username || url.password)
    return addViolation("credentials", "must not contain credentials");
  if (text.includes("#")) return addViolation("fragment", "must not contain a fragment (#…)");
  if (url.href.length > MAX_URL)
    return addViolation("too_long", `must be at most ${MAX_URL} characters`);
  return { ok: true, url: url.href };
}

/** The branding URL rules; null when the URL is acceptable. */
export function urlProblem(text: string): Problem | null {
  const parsed = parseBrandingUrl(text);
  return parsed.ok ? null : { code: parsed.code, problem: parsed.problem };
}

/** The URL's host is the pinned registrable domain or one of its subdomains. */
export function isUnderDomain(text: string, domain: string): boolean {
  const host = new URL(text).hostname.toLowerCase();
  const pinned = domain.toLowerCase();
  return host === pinned || host.endsWith(`.${pinned}`);
}

function oneLineOfAtMost(value: string, max: number): Problem | null {
  if (lengthOf(value) > max)
    return { code: "too_long", problem: `must be at most ${max} characters` };
  return LINE_BREAK.test(value) ? { code: "one_line", problem: "must be one line" } : null;
}

function checkField(
  field: BrandingField,
  value: string,
  options: { registeredDomain: string | null },
): Problem | null {
  switch (field) {
    case "displayName": {
      // The name people know the partner by: normalized and free of invisible
      // characters like a partner's name (lib/partners/names.ts).
      const normalized = normalizeNameText(value);
      if (!normalized.ok) return { code: normalized.code, problem: normalized.problem };
      return oneLineOfAtMost(normalized.text, MAX_DISPLAY_NAME);
    }
    case "purpose":
      return oneLineOfAtMost(value, MAX_PURPOSE);
    case "accentColor":
      return isHexColor(value) ? null : { code: "colour", problem: "must be a colour as #rrggbb" };
    case "defaultLanguage":
      return isLocale(value)
        ? null
        : { code: "language", problem: `must be one of ${locales.join(", ")}` };
    case "logoUrl":
      return urlProblem(value);
    case "supportUrl":
    case "termsUrl":
    case "privacyUrl": {
      const problem = urlProblem(value);
      if (problem) return problem;
      const domain = options.registeredDomain;
      return domain && !isUnderDomain(value, domain)
        ? { code: "outside_domain", problem: `must be under the registered domain ${domain}` }
        : null;
    }
  }
}

const URL_FIELDS: readonly BrandingField[] = ["logoUrl", "supportUrl", "termsUrl", "privacyUrl"];

/**
 * The stored form of a valid value: the display name normalized (NFKC, one
 * space between words), colours in lower case, URLs as serialized.
 */
function normalized(field: BrandingField, value: string): string {
  if (field === "displayName") {
    const name = normalizeNameText(value);
    return name.ok ? name.text : value;
  }
  if (field === "accentColor") return value.toLowerCase();
  if (URL_FIELDS.includes(field)) return new URL(value).href;
  return value;
}

export type BrandingParse =
  { ok: true; record: BrandingRecord } | { ok: false; violations: BrandingViolation[] };

type BrandingOptions = { registeredDomain: string | null; keepLogoPath?: string | null };

/**
 * One field of the record: a string or null; trimmed, blank clearing it;
 * otherwise held to its rule and stored in its normal form.
 */
function brandingValue(field: BrandingField, options: BrandingOptions) {
  return z
    .string({ error: `${field} must be a string or null` })
    .nullish()
    .transform((raw, ctx): string | null => {
      const value = raw?.trim() ?? "";
      if (value === "") return null;
      if (field === "logoUrl" && options.keepLogoPath && value === options.keepLogoPath) {
        return value;
      }
      const problem = checkField(field, value, options);
      if (!problem) return normalized(field, value);
      addViolation(ctx, problem.code, `${field} ${problem.problem}`);
      return z.NEVER;
    });
}

/**
 * The PUT body's schema: every branding field optional, no other key.
 * `keepLogoPath` is the path the partner's current logo is served from:
 * sending it back (as GET /api/partner/me shows it) keeps the logo rather
 * than being refused as a non-https URL.
 */
export function brandingRecordBody(options: BrandingOptions) {
  const shape = Object.fromEntries(
    BRANDING_FIELDS.map((field) => [field, brandingValue(field, options)]),
  ) as Record<BrandingField, ReturnType<typeof brandingValue>>;
  return z.strictObject(shape, {
    error: (issue) => (issue.code === "invalid_type" ? "must be a JSON object" : undefined),
  });
}

const BRANDING_BODY: BodyDescription = {
  noun: "branding",
  fields: BRANDING_FIELDS,
  missingIsRequired: false,
};

/** Validates a PUT body (see brandingRecordBody). */
export function parseBrandingRecord(body: unknown, options: BrandingOptions): BrandingParse {
  const parsed = brandingRecordBody(options).safeParse(body, { reportInput: true });
  if (!parsed.success) {
    return { ok: false, violations: fieldViolations(parsed.error.issues, BRANDING_BODY) };
  }
  const record = Object.fromEntries(
    BRANDING_FIELDS.map((field) => [field, parsed.data[field] ?? null]),
  ) as Record<BrandingField, string | null>;
  return {
    ok: true,
    record: { ...record, defaultLanguage: record.defaultLanguage as Locale | null },
  };
}
