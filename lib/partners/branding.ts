/**
 * What the flow screens show of a partner (SPEC 2.5): its display name, logo
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
  accentColor: string | null;
  supportUrl: string | null;
  termsUrl: string | null;
  privacyUrl: string | null;
  purpose: string | null;
}

const HEX_COLOR = /^#[0-9a-f]{6}$/i;

export function toScreenBranding(
  partner: BrandingSource | null,
  clientName: string,
): ScreenBranding {
  const accent =
    partner?.accentColor && HEX_COLOR.test(partner.accentColor) ? partner.accentColor : null;
  return {
    name: partner?.displayName || partner?.name || clientName,
    logoUrl: partner?.logoHash ? `/logos/${partner.logoHash}` : null,
    accentColor: accent,
    accentTextColor: accent ? readableTextOn(accent) : null,
    purpose: partner?.purpose || null,
    supportUrl: partner?.supportUrl || null,
    termsUrl: partner?.termsUrl || null,
    privacyUrl: partner?.privacyUrl || null,
  };
}

/** WCAG 2.1 relative luminance of an sRGB colour. */
export function relativeLuminance(hex: string): number {
  const channels = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16) / 255);
  const [r = 0, g = 0, b = 0] = channels.map((c) =>
    c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4,
  );
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return ((light ?? 0) + 0.05) / ((dark ?? 0) + 0.05);
}

/** The text colour with the higher contrast on this background. */
export function readableTextOn(background: string): string {
  return contrastRatio(background, "#ffffff") >= contrastRatio(background, "#000000")
    ? "#ffffff"
    : "#000000";
}
