import type { AuditContext } from "./events";
import { type AuditWriter, recordAuditEvent } from "./record";

/**
 * Connect client events, written inside the transaction that makes the
 * change. Secrets never appear: a rotation records when the previous secret
 * stops working, nothing of either secret.
 */

interface ClientRef {
  id: string;
  partnerId: string | null;
}

const scope = (client: ClientRef, context: AuditContext) =>
  ({ context, partnerId: client.partnerId, clientId: client.id }) as const;

export function recordClientCreated(
  tx: AuditWriter,
  client: ClientRef & { name: string; redirectUris: string[] },
  context: AuditContext,
): Promise<void> {
  return recordAuditEvent(tx, {
    ...scope(client, context),
    type: "client.created",
    details: { name: client.name, redirectUris: client.redirectUris },
  });
}

export function recordClientDeleted(
  tx: AuditWriter,
  client: ClientRef & { name: string },
  context: AuditContext,
): Promise<void> {
  return recordAuditEvent(tx, {
    ...scope(client, context),
    type: "client.deleted",
    details: { name: client.name },
  });
}

export function recordSecretRotated(
  tx: AuditWriter,
  client: ClientRef,
  previousSecretExpiresAt: Date,
  context: AuditContext,
): Promise<void> {
  return recordAuditEvent(tx, {
    ...scope(client, context),
    type: "client.secret_rotated",
    details: { previousSecretExpiresAt: previousSecretExpiresAt.toISOString() },
  });
}

/** Recorded only when the set of URIs changed (a reorder or a rename is not a security event). */
export async function recordRedirectUrisChanged(
  tx: AuditWriter,
  client: ClientRef,
  before: readonly string[],
  after: readonly string[],
  context: AuditContext,
): Promise<void> {
  const added = after.filter((uri) => !before.includes(uri));
  const removed = before.filter((uri) => !after.includes(uri));
  if (added.length === 0 && removed.length === 0) return;
  await recordAuditEvent(tx, {
    ...scope(client, context),
    type: "client.redirect_uris_changed",
    details: { added, removed },
  });
}
