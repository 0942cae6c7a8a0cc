import type { API_KEY_REVOCATIONS } from "./events";
import { type AuditWriter, recordAuditEvent } from "./record";

/**
 * API key events, written inside the transaction that issues or revokes the
 * key. The key itself never reaches the log: only its shown prefix.
 */

interface KeyEvent {
  /** The client the key belongs to, which is also the actor: it authenticated with its secret. */
  clientId: string;
  partnerId: string | null;
  /** The user the key reads for. */
  userId: string | null;
  prefix: string;
  clientIp: string | null;
  at: Date;
}

function common(event: KeyEvent) {
  return {
    context: { actor: { kind: "client", id: event.clientId }, clientIp: event.clientIp },
    partnerId: event.partnerId,
    clientId: event.clientId,
    userId: event.userId,
    subject: event.prefix,
    at: event.at,
  } as const;
}

export function recordKeyIssued(
  tx: AuditWriter,
  event: KeyEvent & { scope: string },
): Promise<void> {
  return recordAuditEvent(tx, {
    ...common(event),
    type: "api_key.issued",
    details: { scope: event.scope },
  });
}

export function recordKeyRevoked(
  tx: AuditWriter,
  event: KeyEvent & { reason: (typeof API_KEY_REVOCATIONS)[number] },
): Promise<void> {
  return recordAuditEvent(tx, {
    ...common(event),
    type: "api_key.revoked",
    details: { reason: event.reason },
  });
}
