import type { AuditContext } from "../audit/events";
import { recordRecipientKeyInstalled } from "../audit/partners";
import { db } from "../db/client";
import { lockPartnerRow } from "../db/queries/locks";
import { log } from "../log";

/**
 * Installs a partner's recipient key whose possession was proven
 * (lib/partners/recipient-key.ts), recording it in the audit log in the same
 * transaction. Installing the key already installed changes nothing and
 * records nothing. Returns when the installed key was installed; null for an
 * unknown partner; "changed" when `replaces` (the fingerprint the owner saw
 * installed, null for none) is given and another key is installed by now, so
 * a replacement confirmed for one key never silently replaces another.
 */
export async function installRecipientKey(
  partnerId: string,
  key: { publicKey: string; fingerprint: string; replaces?: string | null },
  at: Date,
  audit: AuditContext,
): Promise<Date | "changed" | null> {
  const installed = await db().$transaction(async (tx) => {
    if (!(await lockPartnerRow(tx, partnerId))) return null;
    const partner = await tx.partner.findUniqueOrThrow({
      where: { id: partnerId },
      select: {
        recipientPublicKey: true,
        recipientKeyFingerprint: true,
        recipientKeyInstalledAt: true,
      },
    });
    // A replayed answer for the key already installed changes nothing.
    if (partner.recipientPublicKey === key.publicKey && partner.recipientKeyInstalledAt) {
      return { at: partner.recipientKeyInstalledAt, replaced: undefined };
    }
    const installedNow = partner.recipientPublicKey ? partner.recipientKeyFingerprint : null;
    if (key.replaces !== undefined && key.replaces !== installedNow) return "changed" as const;
    await tx.partner.update({
      where: { id: partnerId },
      data: {
        recipientPublicKey: key.publicKey,
        recipientKeyFingerprint: key.fingerprint,
        recipientKeyInstalledAt: at,
      },
    });
    const previousFingerprint = partner.recipientKeyFingerprint;
    await recordRecipientKeyInstalled(
      tx,
      partnerId,
      { fingerprint: key.fingerprint, previousFingerprint },
      audit,
    );
    return { at, replaced: previousFingerprint };
  });
  if (installed === "changed") return installed;
  if (installed && installed.replaced !== undefined) {
    log.info("partner.recipient_key_installed", {
      partner_id: partnerId,
      fingerprint: key.fingerprint,
      replaced_fingerprint: installed.replaced,
    });
  }
  return installed?.at ?? null;
}
