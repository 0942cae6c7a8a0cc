import { recordAuditEvent } from "../audit/record";
import type { AuditContext } from "../audit/events";
import { db } from "../db/client";
import { ENDED_KEY_SELECT, recordAccessEnded, type EndedKey } from "../webhooks/producers";

/**
 * "Delete everything" (docs/account.md): the person's user row goes, and
 * with it (ON DELETE CASCADE) their tenants, every connection, account,
 * balance and transaction, every API key and unexchanged code reading for
 * them, and their browser sessions. Flows they signed in to forget them.
 * The address is then unknown, so signing in with it again makes a new user.
 *
 * The live keys are revoked first, each with its audit event, so the
 * partners' security logs say why their keys stopped working, and each
 * partner's client hears `access.ended` (reason `account_deleted`,
 * docs/events.md#types). A partner's owner is refused: deleting them would
 * leave the partner without one.
 */

export type DeleteResult =
  { kind: "deleted"; apiKeysRevoked: number } | { kind: "owns_partner" } | { kind: "not_found" };

export async function deleteEverything(input: {
  userId: string;
  audit: AuditContext;
  now?: Date;
}): Promise<DeleteResult> {
  const now = input.now ?? new Date();
  let ended: EndedKey[] = [];
  const result = await db().$transaction(async (tx): Promise<DeleteResult> => {
    const owner = await tx.partnerOwner.findFirst({
      where: { userId: input.userId },
      select: { partnerId: true },
    });
    if (owner) return { kind: "owns_partner" };
    const revoked = await tx.apiKey.updateManyAndReturn({
      where: { tenant: { userId: input.userId }, revokedAt: null },
      data: { revokedAt: now },
      select: { prefix: true, ...ENDED_KEY_SELECT },
    });
    for (const key of revoked) {
      await recordAuditEvent(tx, {
        type: "api_key.revoked",
        context: input.audit,
        partnerId: key.client.partnerId,
        clientId: key.clientId,
        userId: input.userId,
        subject: key.prefix,
        details: { reason: "user_deleted" },
        at: now,
      });
    }
    // Accounts first: their balances and transactions cascade with them, and the
    // connection and tenant rows then go with the user.
    await tx.account.deleteMany({ where: { tenant: { userId: input.userId } } });
    const user = await tx.user.findUnique({ where: { id: input.userId }, select: { email: true } });
    if (!user) return { kind: "not_found" };
    await tx.user.delete({ where: { id: input.userId } });
    // Sign-ins in progress name the address in clear: they go too.
    await tx.loginChallenge.deleteMany({ where: { email: user.email } });
    ended = revoked;
    return { kind: "deleted", apiKeysRevoked: revoked.length };
  });
  // Gathered before the tenants went, recorded once the deletion committed.
  if (result.kind === "deleted") await recordAccessEnded(ended, "account_deleted", now);
  return result;
}
