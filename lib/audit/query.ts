import { db, type Prisma } from "../db/client";
import { isUuid } from "../db/uuid";
import { AUDIT_EVENTS, type AuditEventType, isAuditEventType } from "./events";

/** Reading the audit log: newest first, paged by a cursor (at, id) that new events cannot shift. */

export interface AuditEventRow {
  id: string;
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

export interface AuditCursor {
  at: Date;
  id: string;
}

export interface AuditQuery {
  partnerId?: string;
  clientId?: string;
  userId?: string;
  types?: readonly AuditEventType[];
  since?: Date;
  /** Only events older than this one (the last of the previous page). */
  before?: AuditCursor;
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
      query.before
        ? {
            OR: [
              { at: { lt: query.before.at } },
              { at: query.before.at, id: { lt: query.before.id } },
            ],
          }
        : {},
    ],
  };
  const rows = await db().auditEvent.findMany({
    where,
    orderBy: [{ at: "desc" }, { id: "desc" }],
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

/** The cursor of a page's last event, as an opaque URL-safe string. */
export function toCursor(row: AuditCursor): string {
  return Buffer.from(`${row.at.toISOString()}|${row.id}`, "utf8").toString("base64url");
}

const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([0-9a-f-]{36})$/;

/** The cursor, or null when the text is not one this service made. */
export function parseCursor(text: string): AuditCursor | null {
  const match = CURSOR.exec(Buffer.from(text, "base64url").toString("utf8"));
  if (!match?.[1] || !match[2] || !isUuid(match[2])) return null;
  const at = new Date(match[1]);
  return Number.isNaN(at.getTime()) ? null : { at, id: match[2] };
}

/** Deletes the events older than `before`; returns how many. */
export async function pruneAuditEvents(before: Date): Promise<number> {
  const { count } = await db().auditEvent.deleteMany({ where: { at: { lt: before } } });
  return count;
}
