import type { z } from "zod";
import type { BrandingRecordWire } from "./schemas";
import { isLocale, locales, type Locale } from "../i18n/locales";

/**
 * The branding record a partner writes (docs/protocol.md#branding, docs/protocol.md#partner-endpoints): the whole record at
 * once, every field optional, null or blank clearing it. Each violation is
 * named with its field so the dashboard can show it next to the input.
 */

export const BRANDING_FIELDS = [
  "displayName",
  "logoUrl",
  "accentColor",
  "supportUrl",
  "termsUrl",
  "privacyUrl",
  "purpose",
  "defaultLanguage",
] as const;

export type BrandingField = (typeof BRANDING_FIELDS)[number];

/** The record as stored and answered (lib/partners/schemas.ts). */
export type BrandingRecord = z.infer<typeof BrandingRecordWire>;

export interface BrandingViolation {
  field: string;
  message: string;
}

export const MAX_DISPLAY_NAME = 80;
export const MAX_PURPOSE = 280;
export const MAX_URL = 2048;

const LINE_BREAK = /[\r\n\u2028\u2029\u0085]/;
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

/** Characters as a person counts them (code points, not UTF-16 units). */
const lengthOf = (text: string) => [...text].length;

export type UrlParse = { ok: true; url: string } | { ok: false; problem: string };

/**
 * The branding URL rules (absolute https, no credentials, no fragment, at
 * most MAX_URL characters), judged on the URL as the WHATWG URL standard
 * serializes it (lower-case host, punycode, default port dropped, dot
 * segments resolved, spaces percent-encoded): the form validated is the form
 * stored, answered and used.
 */
export function parseBrandingUrl(text: string): UrlParse {
  const refuse = (problem: string): UrlParse => ({ ok: false, problem });
  if (text.length > MAX_URL) return refuse(`must be at most ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse("must be an absolute https:// URL");
  }
  if (url.protocol !== "https:") return refuse("must be an https:// URL");
  if (url.username || url.password) return refuse("must not contain credentials");
  if (text.includes("#")) return refuse("must not contain a fragment (#…)");
  if (url.href.length > MAX_URL) return refuse(`must be at most ${MAX_URL} characters`);
  return { ok: true, url: url.href };
}

/** The branding URL rules; null when the URL is acceptable. */
export function urlProblem(text: string): string | null {
  const parsed = parseBrandingUrl(text);
  return parsed.ok ? null : parsed.problem;
}

/** The URL's host is the pinned registrable domain or one of its subdomains. */
export function isUnderDomain(text: string, domain: string): boolean {
  const host = new URL(text).hostname.toLowerCase();
  const pinned = domain.toLowerCase();
  return host === pinned || host.endsWith(`.${pinned}`);
}

function checkField(
  field: BrandingField,
  value: string,
  options: { registeredDomain: string | null },
): string | null {
  switch (field) {
    case "displayName":
      return lengthOf(value) > MAX_DISPLAY_NAME
        ? `must be at most ${MAX_DISPLAY_NAME} characters`
        : LINE_BREAK.test(value)
          ? "must be one line"
          : null;
    case "purpose":
      return lengthOf(value) > MAX_PURPOSE
        ? `must be at most ${MAX_PURPOSE} characters`
        : LINE_BREAK.test(value)
          ? "must be one line"
          : null;
    case "accentColor":
      return HEX_COLOR.test(value) ? null : "must be a colour as #rrggbb";
    case "defaultLanguage":
      return isLocale(value) ? null : `must be one of ${locales.join(", ")}`;
    case "logoUrl":
      return urlProblem(value);
    case "supportUrl":
    case "termsUrl":
    case "privacyUrl": {
      const problem = urlProblem(value);
      if (problem) return problem;
      const domain = options.registeredDomain;
      return domain && !isUnderDomain(value, domain)
        ? `must be under the registered domain ${domain}`
        : null;
    }
  }
}

const URL_FIELDS: readonly BrandingField[] = ["logoUrl", "supportUrl", "termsUrl", "privacyUrl"];

/** The stored form of a valid value: colours in lower case, URLs as serialized. */
function normalized(field: BrandingField, value: string): string {
  if (field === "accentColor") return value.toLowerCase();
  if (URL_FIELDS.includes(field)) return new URL(value).href;
  return value;
}

export type BrandingParse =
  { ok: true; record: BrandingRecord } | { ok: false; violations: BrandingViolation[] };

/**
 * Validates a PUT body. `keepLogoPath` is the path the partner's current logo
 * is served from: sending it back (as GET /api/partner/me shows it) keeps the
 * logo rather than being refused as a non-https URL.
 */
export function parseBrandingRecord(
  body: unknown,
  options: { registeredDomain: string | null; keepLogoPath?: string | null },
): BrandingParse {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, violations: [{ field: "body", message: "must be a JSON object" }] };
  }
  const violations: BrandingViolation[] = [];
  for (const key of Object.keys(body)) {
    if (!(BRANDING_FIELDS as readonly string[]).includes(key)) {
      violations.push({
        field: key,
        message: `${key} is not a branding field (${BRANDING_FIELDS.join(", ")})`,
      });
    }
  }
  const record: Record<BrandingField, string | null> = {
    displayName: null,
    logoUrl: null,
    accentColor: null,
    supportUrl: null,
    termsUrl: null,
    privacyUrl: null,
    purpose: null,
    defaultLanguage: null,
  };
  const input = body as Record<string, unknown>;
  for (const field of BRANDING_FIELDS) {
    const raw = input[field];
    if (raw === undefined || raw === null) continue;
    if (typeof raw !== "string") {
      violations.push({ field, message: `${field} must be a string or null` });
      continue;
    }
    const value = raw.trim();
    if (value === "") continue;
    if (field === "logoUrl" && options.keepLogoPath && value === options.keepLogoPath) {
      record.logoUrl = value;
      continue;
    }
    const problem = checkField(field, value, options);
    if (problem) violations.push({ field, message: `${field} ${problem}` });
    else record[field] = normalized(field, value);
  }
  if (violations.length > 0) return { ok: false, violations };
  return {
    ok: true,
    record: { ...record, defaultLanguage: record.defaultLanguage as Locale | null },
  };
}
