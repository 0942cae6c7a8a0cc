import type { Prisma } from "./client";

/**
 * Row locks for read-compare-write inside a transaction: once held, the row
 * read next is the one the transaction's update replaces, so a change's
 * "before" (an audit event's previous value) cannot be another request's.
 * Each returns whether the row exists.
 */

export async function lockPartnerRow(tx: Prisma.TransactionClient, partnerId: string) {
  const rows =
    await tx.$executeRaw`SELECT 1 FROM "Partner" WHERE "id" = ${partnerId}::uuid FOR UPDATE`;
  return rows > 0;
}

export async function lockClientRow(tx: Prisma.TransactionClient, clientId: string) {
  const rows = await tx.$executeRaw`SELECT 1 FROM "Client" WHERE "id" = ${clientId} FOR UPDATE`;
  return rows > 0;
}

export async function lockUserRow(tx: Prisma.TransactionClient, userId: string) {
  const rows = await tx.$executeRaw`SELECT 1 FROM "User" WHERE "id" = ${userId}::uuid FOR UPDATE`;
  return rows > 0;
}
