import { db } from "../db/client";
import { log } from "../log";
import { recordEvent } from "./events";
import type { AccessEndedReason, WebhookEventData, WebhookEventType } from "./types";

/**
 * Who hears about what (docs/events.md#types). Partner events only: a tenant
 * without a partner (a house client's, a person's own keys) produces none.
 *
 * - `access.*` name the client whose key was issued or ended, and the
 *   tenant's subject (`user` of the token response). `access.ended` is
 *   recorded once per client and tenant whose last live key the action
 *   revoked: a client that still holds another live key for the tenant has
 *   not lost its access, and hears nothing.
 * - `connection.*` go to every client of the tenant's partner that can read
 *   the tenant: a live key, or a code issued and not yet exchanged (its key
 *   will read the connection). One event per such client, with the
 *   connection and all of its account ids; none when no client reads it.
 *
 * Nothing here ever fails the action that caused the event: a failure is
 * logged and the action stands.
 */

async function safely(type: WebhookEventType, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    log.error("webhooks.produce_failed", { type, error });
  }
}

/** A key was issued for a tenant (the code exchanged at the token endpoint). */
export async function recordAccessGranted(input: {
  partnerId: string | null;
  clientId: string;
  user: string;
  at?: Date;
}): Promise<void> {
  const { partnerId } = input;
  if (!partnerId) return;
  await recordEvent({
    partnerId,
    type: "access.granted",
    data: { client_id: input.clientId, user: input.user },
    ...(input.at && { at: input.at }),
  });
}

/** A key an action revoked, with what `access.ended` needs of it. */
export interface EndedKey {
  tenantId: string;
  clientId: string;
  client: { partnerId: string | null };
  tenant: { subject: string; partnerId: string | null };
}

/** What a revocation selects of each key it revoked, for `recordAccessEnded`. */
export const ENDED_KEY_SELECT = {
  tenantId: true,
  clientId: true,
  client: { select: { partnerId: true } },
  tenant: { select: { subject: true, partnerId: true } },
} as const;

/**
 * Access of partner clients ended: one `access.ended` per client and tenant
 * among `keys` (revoked and committed) that holds no other live key for the
 * tenant. Call after the revocation committed; for a deletion, with the keys
 * gathered before the rows went (the count of live keys is then zero).
 */
export async function recordAccessEnded(
  keys: readonly EndedKey[],
  reason: AccessEndedReason,
  now = new Date(),
): Promise<void> {
  await safely("access.ended", async () => {
    const seen = new Set<string>();
    for (const key of keys) {
      const partnerId = key.tenant.partnerId;
      if (!partnerId || key.client.partnerId !== partnerId) continue;
      const pair = `${key.tenantId} ${key.clientId}`;
      if (seen.has(pair)) continue;
      seen.add(pair);
      const live = await db().apiKey.count({
        where: {
          tenantId: key.tenantId,
          clientId: key.clientId,
          revokedAt: null,
          expiresAt: { gt: now },
        },
      });
      if (live > 0) continue;
      await recordEvent({
        partnerId,
        type: "access.ended",
        data: { client_id: key.clientId, user: key.tenant.subject, reason },
        at: now,
      });
    }
  });
}

/**
 * The partner's clients that read the tenant: a live key, or a code issued
 * and not yet exchanged.
 */
async function readersOf(tenantId: string, partnerId: string, now: Date): Promise<string[]> {
  const ofPartner = { tenantId, client: { partnerId } };
  const [keys, codes] = await Promise.all([
    db().apiKey.findMany({
      where: { ...ofPartner, revokedAt: null, expiresAt: { gt: now } },
      select: { clientId: true },
      distinct: ["clientId"],
    }),
    db().authorizationCode.findMany({
      where: { ...ofPartner, consumedAt: null, expiresAt: { gt: now } },
      select: { clientId: true },
      distinct: ["clientId"],
    }),
  ]);
  return [...new Set([...keys, ...codes].map((row) => row.clientId))].sort();
}

type ConnectionEventType = Extract<WebhookEventType, `connection.${string}`>;

/** Event types that carry the consent's end (`valid_until`). */
const WITH_VALID_UNTIL = new Set<ConnectionEventType>([
  "connection.expiring",
  "connection.expired",
  "connection.renewed",
]);

/** One event of `type` per client reading the connection's tenant. */
export async function recordConnectionEvent(
  connectionId: string,
  type: ConnectionEventType,
  now = new Date(),
): Promise<void> {
  await safely(type, async () => {
    const connection = await db().connection.findUnique({
      where: { id: connectionId },
      select: {
        validUntil: true,
        tenant: { select: { id: true, subject: true, partnerId: true } },
        accounts: { select: { id: true }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] },
      },
    });
    const partnerId = connection?.tenant.partnerId;
    if (!connection || !partnerId) return;
    const clients = await readersOf(connection.tenant.id, partnerId, now);
    for (const clientId of clients) {
      const data: WebhookEventData = {
        client_id: clientId,
        user: connection.tenant.subject,
        connection_id: connectionId,
        account_ids: connection.accounts.map((account) => account.id),
        ...(WITH_VALID_UNTIL.has(type) && { valid_until: connection.validUntil.toISOString() }),
      };
      await recordEvent({ partnerId, type, data, at: now });
    }
  });
}

/**
 * `connection.expired`, at most once per consent: the first caller to set
 * `expiredEventAt` records it (a sync that finds the consent expired, or the
 * daily run for consents past `validUntil`); a renewal clears the mark.
 * Answers whether this call recorded it.
 */
export async function recordConnectionExpired(
  connectionId: string,
  now = new Date(),
): Promise<boolean> {
  try {
    const claimed = await db().connection.updateMany({
      where: { id: connectionId, expiredEventAt: null },
      data: { expiredEventAt: now },
    });
    if (claimed.count !== 1) return false;
  } catch (error) {
    log.error("webhooks.produce_failed", { type: "connection.expired", error });
    return false;
  }
  await recordConnectionEvent(connectionId, "connection.expired", now);
  return true;
}

/**
 * `connection.expiring`, at most once per consent: recorded by the first
 * caller to set `expiringEventAt` while the consent is active and ends
 * within `days` days (and has not ended yet); a renewal clears the mark.
 * Answers whether this call recorded it.
 */
export async function recordConnectionExpiring(
  connectionId: string,
  days: number,
  now = new Date(),
): Promise<boolean> {
  try {
    const claimed = await db().connection.updateMany({
      where: {
        id: connectionId,
        expiringEventAt: null,
        status: "Active",
        validUntil: { gt: now, lte: new Date(now.getTime() + days * 86_400_000) },
      },
      data: { expiringEventAt: now },
    });
    if (claimed.count !== 1) return false;
  } catch (error) {
    log.error("webhooks.produce_failed", { type: "connection.expiring", error });
    return false;
  }
  await recordConnectionEvent(connectionId, "connection.expiring", now);
  return true;
}

/**
 * `connection.renewed`: the person renewed the consent (`renew_connection`),
 * and the connection, kept with its ids, has a new `validUntil`. The renewal
 * itself cleared the once-per-consent marks (lib/banking/ingest.ts), so the
 * new consent gets its own `connection.expiring` and `connection.expired`.
 */
export async function recordConnectionRenewed(
  connectionId: string,
  now = new Date(),
): Promise<void> {
  await recordConnectionEvent(connectionId, "connection.renewed", now);
}
