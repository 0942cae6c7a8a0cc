import { PrismaPg } from "@prisma/adapter-pg";
import { requireDatabaseUrl } from "../env";
import { PrismaClient } from "./generated/client";

export { Prisma } from "./generated/client";
export type { PrismaClient } from "./generated/client";

const globalForDb = globalThis as unknown as { bankConnectDb?: PrismaClient };

function createClient(): PrismaClient {
  const adapter = new PrismaPg({ connectionString: requireDatabaseUrl() });
  return new PrismaClient({ adapter });
}

/**
 * The process-wide Prisma client. Kept on globalThis so that Next's dev-mode
 * module reloading does not open a new pool on every edit.
 */
export function db(): PrismaClient {
  globalForDb.bankConnectDb ??= createClient();
  return globalForDb.bankConnectDb;
}

/** Closes the pool (scripts and tests call this before exiting). */
export async function disconnectDb(): Promise<void> {
  const client = globalForDb.bankConnectDb;
  globalForDb.bankConnectDb = undefined;
  await client?.$disconnect();
}
