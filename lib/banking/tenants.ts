import type { Prisma } from "../db/client";

/**
 * Tenants (docs/architecture.md#domain-model): the subject an API key reads for. A partner flow
 * reads for `wl:{partnerId}:connect:{email}`; a house client for the user's
 * own tenant. Each tenant is sealed to one key, fixed when first known: the
 * partner's recipient key if installed when the tenant was created, else the
 * user's own public key.
 */

export function tenantSubject(
  partnerId: string | null,
  user: { id: string; email: string },
): string {
  return partnerId ? `wl:${partnerId}:connect:${user.email}` : `user:${user.id}`;
}

export interface TenantOwner {
  user: { id: string; email: string; publicKey: string | null };
  partner: { id: string; recipientPublicKey: string | null } | null;
}

export async function ensureTenant(
  tx: Prisma.TransactionClient,
  owner: TenantOwner,
): Promise<{ id: string; subject: string }> {
  const subject = tenantSubject(owner.partner?.id ?? null, owner.user);
  const sealing = owner.partner?.recipientPublicKey
    ? { sealingKey: owner.partner.recipientPublicKey, sealingKeyKind: "partner" as const }
    : owner.user.publicKey
      ? { sealingKey: owner.user.publicKey, sealingKeyKind: "user" as const }
      : { sealingKey: null, sealingKeyKind: null };
  const tenant = await tx.tenant.upsert({
    where: { subject },
    create: { subject, userId: owner.user.id, partnerId: owner.partner?.id ?? null, ...sealing },
    update: {},
    select: { id: true, subject: true, sealingKey: true },
  });
  // A tenant created before the user's key existed takes it once it does.
  if (!tenant.sealingKey && sealing.sealingKey) {
    await tx.tenant.updateMany({ where: { id: tenant.id, sealingKey: null }, data: sealing });
  }
  return { id: tenant.id, subject: tenant.subject };
}
