import { matchesKeyedHash } from "../crypto/keyed-hash";
import { db } from "../db/client";
import { log } from "../log";
import { forBank } from "../upstream/metrics";
import { upstreamNamed } from "../upstream";
import type { UpstreamName } from "../upstream/types";

/**
 * "Remove" a bank connection (docs/account.md). The upstream session id is
 * sealed to the tenant's key, which the service does not hold, so the
 * consent can be closed at the bank only when the browser opened it and
 * sent it along: it is checked against the connection's keyed hash before
 * anything is asked of the aggregator. Then the connection and every
 * account, balance and transaction of it are deleted, whether or not the
 * aggregator could close the consent (it ends on its own at `validUntil`).
 */

export type RemoveResult =
  { kind: "removed"; upstreamClosed: boolean } | { kind: "not_found" } | { kind: "wrong_session" };

export async function removeConnection(input: {
  userId: string;
  connectionId: string;
  /** The upstream session id the browser opened, if it could. */
  upstreamSessionId: string | null;
}): Promise<RemoveResult> {
  const connection = await db().connection.findFirst({
    where: { id: input.connectionId, tenant: { userId: input.userId } },
    select: {
      id: true,
      tenantId: true,
      upstream: true,
      upstreamSessionHash: true,
      aspspName: true,
    },
  });
  if (!connection) return { kind: "not_found" };

  let upstreamClosed = false;
  if (input.upstreamSessionId !== null) {
    if (
      !connection.upstreamSessionHash ||
      !matchesKeyedHash("upstream-session", input.upstreamSessionId, connection.upstreamSessionHash)
    ) {
      return { kind: "wrong_session" };
    }
    try {
      await forBank(
        upstreamNamed(connection.upstream as UpstreamName),
        connection.aspspName,
      ).closeSession(input.upstreamSessionId);
      upstreamClosed = true;
    } catch (error) {
      // The person asked for their data to go: the aggregator's failure does not keep it.
      log.warn("account.upstream_close_failed", {
        connectionId: connection.id,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  await db().$transaction(async (tx) => {
    // Balances and transactions go with their accounts (ON DELETE CASCADE).
    await tx.account.deleteMany({
      where: { connectionId: connection.id, tenantId: connection.tenantId },
    });
    await tx.connection.deleteMany({
      where: { id: connection.id, tenantId: connection.tenantId },
    });
  });
  return { kind: "removed", upstreamClosed };
}
