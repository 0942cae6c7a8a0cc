import { recordAuditEvent } from "../audit/record";
import type { AuditContext } from "../audit/events";
import { db } from "../db/client";
import { ENDED_KEY_SELECT, recordAccessEnded } from "../webhooks/producers";

/**
 * "End access" (docs/account.md): every live API key of the partner's
 * clients that reads one of this person's tenants is revoked, and their
 * codes not yet exchanged are deleted so none of them becomes a key later.
 * Revocation is the same column every API request checks in PostgreSQL
 * (lib/keys/api-keys.ts: no cache anywhere), so the partner's next call, on
 * any instance, is answered 401. Only this person's rows are touched: a
 * partner id they never granted revokes nothing. The partner hears
 * `access.ended` (reason `person`, docs/events.md#types).
 */
export async function endPartnerAccess(input: {
  userId: string;
  partnerId: string;
  audit: AuditContext;
  now?: Date;
}): Promise<{ revoked: number }> {
  const now = input.now ?? new Date();
  const ofUserAndPartner = {
    tenant: { userId: input.userId },
    client: { partnerId: input.partnerId },
  };
  const revoked = await db().$transaction(async (tx) => {
    const revoked = await tx.apiKey.updateManyAndReturn({
      where: { ...ofUserAndPartner, revokedAt: null },
      data: { revokedAt: now },
      select: { prefix: true, ...ENDED_KEY_SELECT },
    });
    await tx.authorizationCode.deleteMany({ where: { ...ofUserAndPartner, consumedAt: null } });
    for (const key of revoked) {
      await recordAuditEvent(tx, {
        type: "api_key.revoked",
        context: input.audit,
        partnerId: input.partnerId,
        clientId: key.clientId,
        userId: input.userId,
        subject: key.prefix,
        details: { reason: "user_ended_access" },
        at: now,
      });
    }
    return revoked;
  });
  await recordAccessEnded(revoked, "person", now);
  return { revoked: revoked.length };
}
