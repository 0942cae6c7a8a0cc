import { openToken, sealToken } from "../crypto/sealed-token";
import { db, type Prisma } from "../db/client";
import { AUDIT_EVENTS, type AuditEventType, isAuditEventType } from "./events";
import { deleteAuditEventsBatch } from "./queries";

/**
 * Reading the audit log: newest first by insertion order, paged by a cursor
 * (a sealed token of the last event's sequence number) that new events
 * cannot shift.
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

/** A sequence number, as a cursor seals it (unsigned 64-bit, big-endian). */
const SEQ_BYTES = 8;

/**
 * The cursor of a page's last event, for the log of `scope` (a partner's).
 * The sequence number is global, so its gaps would tell a reader how much
 * happened elsewhere in the service: the cursor is sealed (AES-256-GCM,
 * lib/crypto/sealed-token.ts), says nothing about the position it holds, and
 * opens only for the scope it was given for.
 */
export function toCursor(row: { seq: bigint }, scope: string): string {
  const position = Buffer.alloc(SEQ_BYTES);
  position.writeBigUInt64BE(row.seq);
  return sealToken("audit-cursor", position, scope);
}

/** The position a cursor of this scope holds, or null when the text is not one. */
export function parseCursor(text: string, scope: string): bigint | null {
  const position = openToken("audit-cursor", text, scope, SEQ_BYTES);
  const seq = position?.readBigUInt64BE() ?? 0n;
  return seq > 0n ? seq : null;
}

/** The audit log's retention unless the operator chooses another (docs/audit-log.md#retention). */
export const AUDIT_RETENTION_DAYS = 365;

/** How many events one statement of a prune deletes. */
export const AUDIT_PRUNE_BATCH = 1000;

/**
 * Deletes the events older than `before`; returns how many. In batches, each
 * its own statement, so no prune holds a long lock on the log; it stops at
 * the first batch that finds fewer than a full batch.
 */
export async function pruneAuditEvents(
  before: Date,
  options: { batchSize?: number } = {},
): Promise<number> {
  const batchSize = options.batchSize ?? AUDIT_PRUNE_BATCH;
  let total = 0;
  for (;;) {
    const removed = await deleteAuditEventsBatch(before, batchSize);
    total += removed;
    if (removed < batchSize) return total;
  }
}

/** How many events are older than `before`: what a prune would delete now. */
export function countAuditEventsBefore(before: Date): Promise<number> {
  return db().auditEvent.count({ where: { at: { lt: before } } });
}
