import type { Prisma } from "../client";
import { executeIn, sql, statement } from "../sql";

/**
 * Locks held until the transaction ends. Row locks serve read-compare-write:
 * once held, the row read next is the one the transaction's update replaces,
 * so a change's "before" (an audit event's previous value) cannot be another
 * request's. Each row lock returns whether the row exists.
 */

const partnerRow = statement(
  "locks.partnerRow",
  (partnerId: string) => sql`SELECT 1 FROM "Partner" WHERE "id" = ${partnerId}::uuid FOR UPDATE`,
  [["00000000-0000-0000-0000-000000000000"]],
);

const clientRow = statement(
  "locks.clientRow",
  (clientId: string) => sql`SELECT 1 FROM "Client" WHERE "id" = ${clientId} FOR UPDATE`,
  [["cli_example"]],
);

const userRow = statement(
  "locks.userRow",
  (userId: string) => sql`SELECT 1 FROM "User" WHERE "id" = ${userId}::uuid FOR UPDATE`,
  [["00000000-0000-0000-0000-000000000000"]],
);

/** An advisory lock on a name (`pin-address:…`, `webhook-endpoints:<partner>`). */
const named = statement(
  "locks.named",
  (name: string) => sql`SELECT pg_advisory_xact_lock(hashtextextended(${name}::text, 0))`,
  [["pin-address:example"]],
);

export async function lockPartnerRow(tx: Prisma.TransactionClient, partnerId: string) {
  return (await executeIn(tx, partnerRow(partnerId))) > 0;
}

export async function lockClientRow(tx: Prisma.TransactionClient, clientId: string) {
  return (await executeIn(tx, clientRow(clientId))) > 0;
}

export async function lockUserRow(tx: Prisma.TransactionClient, userId: string) {
  return (await executeIn(tx, userRow(userId))) > 0;
}

/**
 * Serializes everything that takes the same name until the transaction ends
 * (a PostgreSQL advisory lock on the name's 64-bit hash).
 */
export async function lockName(tx: Prisma.TransactionClient, name: string): Promise<void> {
  await executeIn(tx, named(name));
}
