import { db, type Prisma } from "../db/client";
import { AUDIT_EVENTS, type AuditEventType, isAuditEventType } from "./events";

/**
 * Reading the audit log: newest first by insertion order, paged by a cursor
 * (the last event's sequence number) that new events cannot shift.
 */

export interface AuditEventRow {
  id: string;
  seq: bigint;
  at: Date;
  type: AuditEventType;
  actorKind: "user" | "client" | "operator" | "system" | "anonymous";
  actorId: string | null;
  partnerId: string | null;
  clientId: string | null;
  userId: string | null;
  subject: string | null;
  clientIp: string | null;
  details: Record<string, unknown>;
}

export interface AuditQuery {
  partnerId?: string;
  clientId?: string;
  userId?: string;
  types?: readonly AuditEventType[];
  since?: Date;
  /** Only events older than this one (the last of the previous page). */
  before?: bigint;
  limit: number;
}

export async function listAuditEvents(query: AuditQuery): Promise<AuditEventRow[]> {
  const where: Prisma.AuditEventWhereInput = {
    ...(query.partnerId === undefined ? {} : { partnerId: query.partnerId }),
    ...(query.clientId === undefined ? {} : { clientId: query.clientId }),
    ...(query.userId === undefined ? {} : { userId: query.userId }),
    ...(query.types === undefined ? {} : { type: { in: [...query.types] } }),
    AND: [
      query.since ? { at: { gte: query.since } } : {},
      query.before === undefined ? {} : { seq: { lt: query.before } },
    ],
  };
  const rows = await db().auditEvent.findMany({
    where,
    orderBy: { seq: "desc" },
    take: query.limit,
  });
  return rows.flatMap((row) => {
    if (!isAuditEventType(row.type)) return [];
    // Read through the same strict schema it was written with: whatever the
    // row holds, nothing outside the type's fields leaves the table.
    const details = AUDIT_EVENTS[row.type].details.safeParse(row.details);
    return [{ ...row, type: row.type, details: details.success ? details.data : {} }];
  });
}

/** The cursor of a page's last event. */
export const toCursor = (row: { seq: bigint }): string => row.seq.toString();

/** The cursor, or null when the text is not one. */
export function parseCursor(text: string): bigint | null {
  return /^[1-9]\d{0,17}$/.test(text) ? BigInt(text) : null;
}

/** Deletes the events older than `before`; returns how many. */
export async function pruneAuditEvents(before: Date): Promise<number> {
  const { count } = await db().auditEvent.deleteMany({ where: { at: { lt: before } } });
  return count;
}
