import { db, type Prisma } from "../db/client";
import { normalizeIp } from "../http/client-ip";
import { log } from "../log";
import {
  AUDIT_EVENTS,
  type AuditContext,
  type AuditDetails,
  type AuditEventType,
  type AuditSubject,
} from "./events";

/**
 * Writing security events (docs/audit-log.md). The rule for failures:
 *
 * - A change is recorded inside the transaction that makes it (`tx`), so the
 *   change and its event commit together or not at all: when the event cannot
 *   be written, the change is rolled back and the caller answers its usual
 *   error (503 while the database is down), never a success without an event.
 *   On the token endpoint that is one INSERT inside the transaction that
 *   already consumes the code and mints the key.
 * - A refusal (a failed sign-in) changes nothing worth rolling back, so it is
 *   recorded right after with `recordRefusal`: a failed write is logged as an
 *   error and the person still gets the refusal they earned.
 */

export type AuditEventInput<T extends AuditEventType> = {
  type: T;
  context: AuditContext;
  partnerId?: string | null;
  clientId?: string | null;
  userId?: string | null;
  details: AuditDetails<T>;
  at?: Date;
} & (AuditSubject<T> extends null ? { subject?: null } : { subject: AuditSubject<T> });

/** Anything that can write rows: the Prisma client or an interactive transaction. */
export type AuditWriter = Pick<Prisma.TransactionClient, "auditEvent">;

/** An event's row, checked against its type's schema. */
export interface AuditEventColumns {
  type: AuditEventType;
  actorKind: AuditContext["actor"]["kind"];
  actorId: string | null;
  partnerId: string | null;
  clientId: string | null;
  userId: string | null;
  subject: string | null;
  clientIp: string | null;
  details: Prisma.InputJsonObject;
  at?: Date;
}

/**
 * The columns of an event, after its subject and details passed its type's
 * strict schema: what `recordAuditEvent` writes, and what a hand-written
 * statement that makes a change and records it at once (the token
 * exchange, lib/oauth/codes.ts) inserts.
 */
export function auditEventColumns<T extends AuditEventType>(
  event: AuditEventInput<T>,
): AuditEventColumns {
  const spec = AUDIT_EVENTS[event.type];
  const details = spec.details.parse(event.details) as Prisma.InputJsonObject;
  const subject = spec.subject.parse(event.subject ?? null);
  const { actor, clientIp } = event.context;
  return {
    type: event.type,
    actorKind: actor.kind,
    actorId: "id" in actor ? actor.id : null,
    partnerId: event.partnerId ?? null,
    clientId: event.clientId ?? null,
    userId: event.userId ?? null,
    subject,
    // Only an address: "unknown" (no stamped header) and anything else become null.
    clientIp: normalizeIp(clientIp ?? undefined),
    details,
    ...(event.at ? { at: event.at } : {}),
  };
}

/** Checks the event against its type's schema and writes it with `writer`. */
export async function recordAuditEvent<T extends AuditEventType>(
  writer: AuditWriter,
  event: AuditEventInput<T>,
): Promise<void> {
  await writer.auditEvent.create({ data: auditEventColumns(event) });
}

/** A refusal's event, written after the fact; see the rule above. */
export async function recordRefusal<T extends AuditEventType>(
  event: AuditEventInput<T>,
): Promise<void> {
  try {
    await recordAuditEvent(db(), event);
  } catch (error) {
    log.error("audit.write_failed", { type: event.type, error });
  }
}
