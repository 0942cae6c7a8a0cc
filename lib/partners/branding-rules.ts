/**
 * The branding record's fields and its colour rule, pure and free of server
 * imports: the API's parser (lib/partners/branding-record.ts), the flow
 * screens and the dashboard all read them from here.
 */

/** The fields of the branding record, in the order they are shown and logged. */
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

/** An accent colour as `#rrggbb` (either case; stored in lower case). */
export const HEX_COLOR = /^#[0-9a-f]{6}$/i;

export const isHexColor = (value: string): boolean => HEX_COLOR.test(value);
