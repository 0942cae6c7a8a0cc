import type { AuditContext } from "../audit/events";
import { recordBrandingChanged } from "../audit/partners";
import { db, type Prisma } from "../db/client";
import { lockPartnerRow } from "../db/queries/locks";
import { BRANDING_FIELDS, type BrandingField } from "./branding-record";
import { claimDisplayName, NameTakenError } from "./name-keys";
import { unknownPartner } from "./partners";

/**
 * Writes branding columns and records which branding fields changed, in one
 * transaction (docs/audit-log.md). The logo counts as `logoUrl`, whether it
 * was uploaded or fetched. A display name is claimed as the partner's
 * (lib/partners/name-keys.ts): one that looks like another partner's name
 * or display name throws NameTakenError, and nothing is written.
 */

type BrandingColumns = {
  displayName: string | null;
  logoHash: string | null;
  logoSourceUrl: string | null;
  accentColor: string | null;
  supportUrl: string | null;
  termsUrl: string | null;
  privacyUrl: string | null;
  purpose: string | null;
  defaultLanguage: string | null;
};

const valueOf = (partner: BrandingColumns, field: BrandingField): string | null =>
  field === "logoUrl" ? `${partner.logoHash ?? ""} ${partner.logoSourceUrl ?? ""}` : partner[field];

export async function updateBranding(
  partnerId: string,
  data: Partial<BrandingColumns>,
  audit: AuditContext,
) {
  return db().$transaction(async (tx: Prisma.TransactionClient) => {
    if (!(await lockPartnerRow(tx, partnerId))) throw unknownPartner(partnerId);
    const before = await tx.partner.findUniqueOrThrow({ where: { id: partnerId } });
    if (data.displayName !== undefined) {
      const held = await claimDisplayName(tx, before, data.displayName);
      if (!held) throw new NameTakenError();
    }
    const updated = await tx.partner.update({
      where: { id: partnerId },
      data,
      include: { logo: { select: { contentType: true } } },
    });
    const changed = BRANDING_FIELDS.filter(
      (field) => valueOf(before, field) !== valueOf(updated, field),
    );
    await recordBrandingChanged(tx, partnerId, changed, audit);
    return updated;
  });
}
