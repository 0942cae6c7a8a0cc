import { PrismaPg } from "@prisma/adapter-pg";
import { getEnv, requireDatabaseUrl } from "../env";
import { PrismaClient } from "./generated/client";

export { Prisma } from "./generated/client";
export type { PrismaClient } from "./generated/client";

/**
 * Two connection pools per process (docs/capacity.md). `db()` serves every
 * request: sign-in, token exchange, reads. `syncDb()` serves only bank syncs
 * and the storing of a new bank consent, whose transactions are large and
 * slow; they are gated to `SYNC_CONCURRENCY` at a time (lib/banking/budget.ts)
 * and each holds at most one connection at a time, so that pool has as many
 * connections. However long a sync runs, it never takes a connection that
 * a sign-in is waiting for.
 *
 * A request waits at most `DATABASE_POOL_TIMEOUT_MS` for a connection (for a
 * plain query and for the start of a transaction alike); then it fails with
 * an error that lib/db/faults.ts recognises, and the endpoint answers 503
 * with Retry-After instead of queueing without end.
 */

/** A connection unused this long is closed (PostgreSQL's backends cost memory). */
export const IDLE_CONNECTION_MS = 30_000;
/**
 * The longest a request's interactive transaction may stay open. Request
 * transactions take milliseconds; this bounds one stuck behind a lock. Syncs
 * set their own from their deadline.
 */
export const TRANSACTION_TIMEOUT_MS = 10_000;

type PoolName = "requests" | "sync";

const globalForDb = globalThis as unknown as {
  bankConnectDbPools?: Partial<Record<PoolName, PrismaClient>>;
};

function createClient(pool: PoolName): PrismaClient {
  const { database, sync } = getEnv();
  const adapter = new PrismaPg({
    connectionString: requireDatabaseUrl(),
    max: pool === "sync" ? sync.concurrency : database.poolSize,
    connectionTimeoutMillis: database.poolTimeoutMs,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    application_name: `bank-connect/${pool}`,
  });
  return new PrismaClient({
    adapter,
    transactionOptions: { maxWait: database.poolTimeoutMs, timeout: TRANSACTION_TIMEOUT_MS },
  });
}

/**
 * Kept on globalThis so that Next's dev-mode module reloading does not open
 * new pools on every edit.
 */
function clientFor(pool: PoolName): PrismaClient {
  const clients = (globalForDb.bankConnectDbPools ??= {});
  clients[pool] ??= createClient(pool);
  return clients[pool];
}

/** The process-wide client of the request pool. */
export function db(): PrismaClient {
  return clientFor("requests");
}

/** The client of the sync pool: bank syncs and the storing of bank consents only. */
export function syncDb(): PrismaClient {
  return clientFor("sync");
}

/** Closes both pools (scripts and tests call this before exiting or re-pointing). */
export async function disconnectDb(): Promise<void> {
  const clients = Object.values(globalForDb.bankConnectDbPools ?? {});
  globalForDb.bankConnectDbPools = undefined;
  await Promise.all(clients.map((client) => client.$disconnect()));
}
