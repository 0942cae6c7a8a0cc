import { normalizeIp } from "../http/client-ip";
import { type API_KEY_REVOCATIONS, AUDIT_EVENTS } from "./events";
import { type AuditEventColumns, type AuditWriter, recordAuditEvent } from "./record";

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

/**
 * The api_key.issued row of a token exchange, which consumes the code, mints
 * the key and records the event in one statement (lib/oauth/codes.ts). That
 * statement learns the user and the scope from the code row it consumes, so
 * it fills `userId` and `details` (`{scope}`: the code's scope, which
 * authorize restricts to the one scope the service grants, never a secret);
 * every other column is checked here as `recordAuditEvent` checks it.
 */
export function keyIssuedColumns(
  event: Omit<KeyEvent, "userId">,
): Omit<AuditEventColumns, "userId" | "details"> & { at: Date } {
  const base = common({ ...event, userId: null });
  return {
    type: "api_key.issued",
    actorKind: base.context.actor.kind,
    actorId: base.context.actor.id,
    partnerId: base.partnerId,
    clientId: base.clientId,
    subject: AUDIT_EVENTS["api_key.issued"].subject.parse(base.subject),
    clientIp: normalizeIp(base.context.clientIp ?? undefined),
    at: base.at,
  };
}
