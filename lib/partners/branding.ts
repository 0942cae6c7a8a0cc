import type { LogoContentType } from "./logo-fetch";
import { readableTextOn } from "./contrast";
import { logoPath } from "./logos";
import { isHexColor } from "./branding-rules";

/**
 * What the flow screens show of a partner (docs/protocol.md#branding): its display name, logo
 * served from our host, accent colour, purpose and links — or the service's
 * own look where a field is empty.
 */

export interface ScreenBranding {
  name: string;
  logoUrl: string | null;
  /** #rrggbb, or null for the service's own accent. */
  accentColor: string | null;
  /** Black or white, whichever reads better on the accent (WCAG contrast). */
  accentTextColor: string | null;
  purpose: string | null;
  supportUrl: string | null;
  termsUrl: string | null;
  privacyUrl: string | null;
}

interface BrandingSource {
  name: string;
  displayName: string | null;
  logoHash: string | null;
  logo?: { contentType: string } | null;
  accentColor: string | null;
  supportUrl: string | null;
  termsUrl: string | null;
  privacyUrl: string | null;
  purpose: string | null;
}

/** The partner columns toScreenBranding reads, for a query's `select`. */
export const SCREEN_BRANDING_SELECT = {
  displayName: true,
  logoHash: true,
  logo: { select: { contentType: true } },
  accentColor: true,
  supportUrl: true,
  termsUrl: true,
  privacyUrl: true,
  purpose: true,
} as const;

export function toScreenBranding(
  partner: BrandingSource | null,
  clientName: string,
): ScreenBranding {
  const accent =
    partner?.accentColor && isHexColor(partner.accentColor) ? partner.accentColor : null;
  return {
    name: partner?.displayName || partner?.name || clientName,
    logoUrl:
      partner?.logoHash && partner.logo
        ? logoPath(partner.logoHash, partner.logo.contentType as LogoContentType)
        : null,
    accentColor: accent,
    accentTextColor: accent ? readableTextOn(accent) : null,
    purpose: partner?.purpose || null,
    supportUrl: partner?.supportUrl || null,
    termsUrl: partner?.termsUrl || null,
    privacyUrl: partner?.privacyUrl || null,
  };
}

export { contrastRatio, readableTextOn, relativeLuminance } from "./contrast";
