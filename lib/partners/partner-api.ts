import type { z } from "zod";
import type { ClientBrandingWire, PartnerWire } from "./schemas";
import { ownerAudit } from "../audit/context";
import { db } from "../db/client";
import { answeringOutages, temporarilyUnavailable } from "../http/outage";
import { jsonResponse, privateJson } from "../http/respond";
import { log } from "../log";
import { parseBrandingRecord, type BrandingRecord } from "./branding-record";
import { readableTextOn } from "./branding";
import { updateBranding } from "./branding-changes";
import { fetchLogo, LOGO_MAX_BYTES, LogoError, type LogoContentType } from "./logo-fetch";
import { logoPath, storeLogo } from "./logos";
import { NameTakenError } from "./name-keys";
import { authenticateOwner } from "./owner-session";
import { BodyTooLargeError, readBodyBytes, readJsonBody } from "../http/body-limits";
import type { FieldViolation } from "./violations";

/**
 * The owner's endpoints (docs/protocol.md#partner-endpoints): `GET /api/partner/me`, `PUT /api/partner/branding` (the owner's
 * interactive session) and `GET /api/connect/clients/{client_id}/branding`
 * (anonymous, for the screens).
 */

type PartnerWithLogo = NonNullable<Awaited<ReturnType<typeof findPartner>>>;

export function findPartner(id: string) {
  return db().partner.findUnique({
    where: { id },
    include: { logo: { select: { contentType: true } } },
  });
}

/** Where the partner's logo is served from on this host, or null. */
export function servedLogoPath(partner: {
  logoHash: string | null;
  logo: { contentType: string } | null;
}): string | null {
  if (!partner.logoHash || !partner.logo) return null;
  // Stored logos were sniffed as one of the three types before they were stored.
  return logoPath(partner.logoHash, partner.logo.contentType as LogoContentType);
}

export function toBrandingWire(partner: PartnerWithLogo): BrandingRecord {
  return {
    displayName: partner.displayName,
    logoUrl: servedLogoPath(partner),
    accentColor: partner.accentColor,
    supportUrl: partner.supportUrl,
    termsUrl: partner.termsUrl,
    privacyUrl: partner.privacyUrl,
    purpose: partner.purpose,
    defaultLanguage: partner.defaultLanguage as BrandingRecord["defaultLanguage"],
  };
}

export function toPartnerWire(partner: PartnerWithLogo): z.infer<typeof PartnerWire> {
  return {
    id: partner.id,
    name: partner.name,
    status: partner.status,
    registeredDomain: partner.registeredDomain,
    branding: toBrandingWire(partner),
    recipientKey: partner.recipientPublicKey
      ? {
          fingerprint: partner.recipientKeyFingerprint,
          installedAt: partner.recipientKeyInstalledAt?.toISOString() ?? null,
        }
      : null,
  };
}

export const handlePartnerMe = answeringOutages(async (request: Request): Promise<Response> => {
  const owner = await authenticateOwner(request, { mutation: false });
  if (owner instanceof Response) return owner;
  const partner = await findPartner(owner.partnerId);
  if (!partner) return privateJson({ error: "not_found" }, 404);
  return privateJson(toPartnerWire(partner));
}, temporarilyUnavailable);

const invalidBranding = (violations: FieldViolation[]) =>
  privateJson(
    {
      error: "invalid_branding",
      error_description: violations.map((violation) => violation.message).join("; "),
      violations,
    },
    400,
  );

/** The logo the record asks for: kept, cleared, or fetched from its https URL and stored. */
async function resolveLogo(
  partner: PartnerWithLogo,
  logoUrl: string | null,
): Promise<{ logoHash: string | null; logoSourceUrl: string | null }> {
  if (logoUrl === null) return { logoHash: null, logoSourceUrl: null };
  if (logoUrl === servedLogoPath(partner) || logoUrl === partner.logoSourceUrl) {
    return { logoHash: partner.logoHash, logoSourceUrl: partner.logoSourceUrl };
  }
  const fetched = await fetchLogo(logoUrl);
  const stored = await storeLogo(fetched.data);
  return { logoHash: stored.hash, logoSourceUrl: logoUrl };
}

/** PUT /api/partner/branding: replaces the whole record (omitted or blank fields are cleared). */
export const handlePutBranding = answeringOutages(async (request: Request): Promise<Response> => {
  const owner = await authenticateOwner(request, { mutation: true });
  if (owner instanceof Response) return owner;
  const partner = await findPartner(owner.partnerId);
  if (!partner) return privateJson({ error: "not_found" }, 404);
  const read = await readJsonBody(request);
  if (!read.ok) {
    return invalidBranding([
      { field: "body", code: "invalid_body", message: "the body must be JSON" },
    ]);
  }
  const parsed = parseBrandingRecord(read.value, {
    registeredDomain: partner.registeredDomain,
    keepLogoPath: servedLogoPath(partner),
  });
  if (!parsed.ok) return invalidBranding(parsed.violations);
  const { logoUrl, ...fields } = parsed.record;
  let logo;
  try {
    logo = await resolveLogo(partner, logoUrl);
  } catch (error) {
    if (!(error instanceof LogoError)) throw error;
    log.info("partner.logo_refused", { partner_id: partner.id, reason: error.code });
    return invalidBranding([
      { field: "logoUrl", code: error.code, message: `logoUrl: ${error.message}` },
    ]);
  }
  let updated;
  try {
    updated = await updateBranding(partner.id, { ...fields, ...logo }, ownerAudit(request, owner));
  } catch (error) {
    if (!(error instanceof NameTakenError)) throw error;
    return invalidBranding([
      {
        field: "displayName",
        code: "taken",
        message:
          "displayName looks the same as the name of another partner: choose another display name",
      },
    ]);
  }
  return privateJson(toPartnerWire(updated));
}, temporarilyUnavailable);

/** The body if it is at most `limit` bytes; null when it is longer (the rest is not read). */
async function readLimited(request: Request, limit: number): Promise<Buffer | null> {
  try {
    return Buffer.from(await readBodyBytes(request, limit));
  } catch (error) {
    if (error instanceof BodyTooLargeError) return null;
    throw error;
  }
}

/** POST /api/partner/logo: the image itself as the body; PNG, JPEG or WebP by its bytes. */
export const handleLogoUpload = answeringOutages(async (request: Request): Promise<Response> => {
  const owner = await authenticateOwner(request, { mutation: true });
  if (owner instanceof Response) return owner;
  const bytes = await readLimited(request, LOGO_MAX_BYTES);
  if (!bytes) {
    return invalidBranding([
      {
        field: "logo",
        code: "too_large",
        message: `logo: the image must be at most ${LOGO_MAX_BYTES / 1024} KiB`,
      },
    ]);
  }
  let stored;
  try {
    stored = await storeLogo(bytes);
  } catch (error) {
    if (!(error instanceof LogoError)) throw error;
    return invalidBranding([
      { field: "logo", code: error.code, message: `logo: ${error.message}` },
    ]);
  }
  const updated = await updateBranding(
    owner.partnerId,
    { logoHash: stored.hash, logoSourceUrl: null },
    ownerAudit(request, owner),
  );
  return privateJson(toPartnerWire(updated));
}, temporarilyUnavailable);

/** GET /api/connect/clients/{client_id}/branding: what the screens show; cacheable. */
export async function handleClientBranding(clientId: string): Promise<Response> {
  const client = await db().client.findUnique({
    where: { id: clientId },
    include: { partner: { include: { logo: { select: { contentType: true } } } } },
  });
  if (!client) {
    return jsonResponse(
      { error: "not_found", error_description: "no such client" },
      { status: 404, headers: { "Cache-Control": "public, max-age=60" } },
    );
  }
  const partner = client.partner;
  const accent = partner?.accentColor ?? null;
  return jsonResponse(
    {
      clientId: client.id,
      name: partner?.displayName || partner?.name || client.name,
      logoUrl: partner ? servedLogoPath(partner) : null,
      accentColor: accent,
      accentTextColor: accent ? readableTextOn(accent) : null,
      purpose: partner?.purpose ?? null,
      supportUrl: partner?.supportUrl ?? null,
      termsUrl: partner?.termsUrl ?? null,
      privacyUrl: partner?.privacyUrl ?? null,
      defaultLanguage: partner?.defaultLanguage ?? null,
    } satisfies z.infer<typeof ClientBrandingWire>,
    { headers: { "Cache-Control": "public, max-age=300" } },
  );
}
