import { recordKeyRevoked } from "../audit/api-keys";
import { recordAuditEvent } from "../audit/record";
import type { AuditContext } from "../audit/events";
import { db } from "../db/client";
import { ENDED_KEY_SELECT, recordAccessEnded, type EndedKey } from "../webhooks/producers";

/**
 * Starting over with a new key (docs/key-model.md): a user who lost their
 * key, or its passphrase, replaces it. What was sealed to the old key opens
 * for nobody any more, so none of it is kept:
 * - every tenant of the user sealed to the old key loses its connections,
 *   accounts, balances and transactions, and goes back to unsealed, so its
 *   next bank connection seals it like a new tenant;
 * - the API keys reading those tenants are revoked: what they read is gone,
 *   and what comes next is sealed to a key their holder does not have (the
 *   relay that gives it to them mints a new API key); a partner's client hears
 *   `access.ended` (reason `start_over`, docs/events.md#types);
 * - codes minted for those tenants and not yet exchanged are deleted, so
 *   none of them becomes such an API key later.
 * Tenants sealed to a partner's recipient key are the partner's to open and
 * are left alone. The passkeys that held the old key hold nothing now (they
 * keep signing in; the browser wraps the new key for them again), and the
 * backup mark is the new key's: set only when its backup was confirmed.
 */

export type StartOverResult =
  | { replaced: true; tenants: number; connections: number; apiKeysRevoked: number }
  | { replaced: false };

export async function replaceUserKey(input: {
  userId: string;
  /** The key the person saw registered when they chose to start over. */
  replaces: string;
  publicKey: string;
  /** The person confirmed a saved passphrase backup of the new key (today's setup screens do). */
  backupSaved?: boolean;
  /** Who asked, for the audit log (docs/audit-log.md). */
  audit: AuditContext;
  now?: Date;
}): Promise<StartOverResult> {
  const now = input.now ?? new Date();
  let ended: EndedKey[] = [];
  const result = await db().$transaction(async (tx): Promise<StartOverResult> => {
    // Conditional: a second click, or another tab that already started over, changes nothing.
    const swapped = await tx.user.updateMany({
      where: { id: input.userId, publicKey: input.replaces },
      data: {
        publicKey: input.publicKey,
        publicKeyAt: now,
        keyBackupAt: input.backupSaved ? now : null,
      },
    });
    if (swapped.count !== 1) return { replaced: false };
    await tx.passkey.updateMany({
      where: { userId: input.userId, wrappedKey: { not: null } },
      data: { wrappedKey: null },
    });

    const tenants = await tx.tenant.findMany({
      where: { userId: input.userId, sealingKeyKind: "user", sealingKey: input.replaces },
      select: { id: true },
    });
    const tenantIds = tenants.map((tenant) => tenant.id);
    const inTenants = { tenantId: { in: tenantIds } };
    // Unsealing first locks the tenant rows: a bank session being stored for
    // them either commits before this goes on (and is deleted below) or finds
    // the tenant's key changed and writes nothing (lib/banking/ingest.ts).
    await tx.tenant.updateMany({
      where: { id: { in: tenantIds } },
      data: { sealingKey: null, sealingKeyKind: null },
    });
    // Balances and transactions go with their accounts (ON DELETE CASCADE).
    await tx.account.deleteMany({ where: inTenants });
    const connections = await tx.connection.deleteMany({ where: inTenants });
    const revoked = await tx.apiKey.updateManyAndReturn({
      where: { ...inTenants, revokedAt: null },
      data: { revokedAt: now },
      select: { prefix: true, ...ENDED_KEY_SELECT },
    });
    for (const key of revoked) {
      await recordKeyRevoked(tx, {
        clientId: key.clientId,
        partnerId: key.client.partnerId,
        userId: input.userId,
        prefix: key.prefix,
        clientIp: input.audit.clientIp,
        at: now,
        reason: "key_start_over",
      });
    }
    await tx.authorizationCode.deleteMany({ where: { ...inTenants, consumedAt: null } });
    const counts = {
      tenants: tenantIds.length,
      connections: connections.count,
      apiKeysRevoked: revoked.length,
    };
    await recordAuditEvent(tx, {
      type: "user.key_replaced",
      context: input.audit,
      userId: input.userId,
      details: counts,
      at: now,
    });
    ended = revoked;
    return { replaced: true, ...counts };
  });
  if (result.replaced) await recordAccessEnded(ended, "start_over", now);
  return result;
}
