import { LOGO_ERROR_CODES } from "./logo-fetch";
import { REDIRECT_URI_RULES } from "./redirect-uris";

/**
 * What the dashboard endpoints answer for each refused field in a 400:
 * `{field, code, message}`. The message is one line of English for a
 * developer; the code is stable, so a screen can say the same in the
 * person's language next to the field (lib/partners/field-errors.ts).
 */

/** Rules shared by several fields. */
const FIELD_CODES = [
  "required",
  "too_long",
  "one_line",
  "invalid_type",
  "unknown_field",
  "invalid_body",
  "https_url",
  "credentials",
  "fragment",
  "outside_domain",
  "colour",
  "language",
  "taken",
  "invisible",
  "unknown_event_type",
] as const;

export const VIOLATION_CODES = [
  ...new Set([
    ...FIELD_CODES,
    ...(Object.keys(REDIRECT_URI_RULES) as (keyof typeof REDIRECT_URI_RULES)[]),
    ...LOGO_ERROR_CODES,
  ]),
];

export type ViolationCode =
  | (typeof FIELD_CODES)[number]
  | keyof typeof REDIRECT_URI_RULES
  | (typeof LOGO_ERROR_CODES)[number];

export interface FieldViolation {
  /** The body field, or `redirectUris[i]` for one entry of the list, or `body`. */
  field: string;
  code: ViolationCode;
  message: string;
}
