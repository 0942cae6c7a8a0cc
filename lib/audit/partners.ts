import type { AuditContext } from "./events";
import { type AuditWriter, recordAuditEvent } from "./record";

/** Partner events, written inside the transaction that makes the change. */

export function recordPartnerCreated(
  tx: AuditWriter,
  partner: { id: string; name: string; ownerEmail: string },
  context: AuditContext,
): Promise<void> {
  return recordAuditEvent(tx, {
    context,
    partnerId: partner.id,
    type: "partner.created",
    details: { name: partner.name, ownerEmail: partner.ownerEmail },
  });
}

export function recordPartnerStatus(
  tx: AuditWriter,
  partnerId: string,
  status: "active" | "suspended",
  context: AuditContext,
): Promise<void> {
  return recordAuditEvent(tx, {
    context,
    partnerId,
    type: status === "suspended" ? "partner.suspended" : "partner.resumed",
    details: {},
  });
}

export function recordOwnerAdded(
  tx: AuditWriter,
  owner: { partnerId: string; userId: string; email: string },
  context: AuditContext,
): Promise<void> {
  return recordAuditEvent(tx, {
    context,
    partnerId: owner.partnerId,
    userId: owner.userId,
    type: "partner.owner_added",
    details: { email: owner.email },
  });
}

/** Only the names of the fields that changed: their values are on the partner page. */
export async function recordBrandingChanged(
  tx: AuditWriter,
  partnerId: string,
  fields: readonly string[],
  context: AuditContext,
): Promise<void> {
  if (fields.length === 0) return;
  await recordAuditEvent(tx, {
    context,
    partnerId,
    type: "partner.branding_changed",
    details: { fields: [...fields] },
  });
}

export function recordRecipientKeyInstalled(
  tx: AuditWriter,
  partnerId: string,
  keys: { fingerprint: string; previousFingerprint: string | null },
  context: AuditContext,
): Promise<void> {
  return recordAuditEvent(tx, {
    context,
    partnerId,
    type: "partner.recipient_key_installed",
    details: keys,
  });
}
