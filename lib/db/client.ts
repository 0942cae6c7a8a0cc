import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { getEnv, requireDatabaseUrl } from "../env";
import { log } from "../log";
import { watchPool } from "../metrics";
import { registerInstrumentation } from "../tracing";
import { measurePoolWaits } from "./pool-wait";
import { PrismaClient } from "./generated/client";
import { instrumentPg } from "./tracing";

export { Prisma } from "./generated/client";
export type { PrismaClient } from "./generated/client";

// Statements and checkouts become spans while tracing runs (lib/db/tracing.ts).
registerInstrumentation("pg", instrumentPg);

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

/**
 * One pg pool per name, shared by Prisma (through its driver adapter) and by
 * the hand-written statements of lib/db/sql.ts: both wait for the same
 * connections with the same timeout, so a pool that is busy or a database
 * that is down fails both alike, and one is never starved by the other.
 */
interface DbPool {
  pool: pg.Pool;
  prisma: PrismaClient;
}

const globalForDb = globalThis as unknown as {
  bankConnectDbPools?: Partial<Record<PoolName, DbPool>>;
};

function createPool(name: PoolName): DbPool {
  const { database, sync } = getEnv();
  const pool = new pg.Pool({
    connectionString: requireDatabaseUrl(),
    max: name === "sync" ? sync.concurrency : database.poolSize,
    connectionTimeoutMillis: database.poolTimeoutMs,
    idleTimeoutMillis: IDLE_CONNECTION_MS,
    application_name: `bank-connect/${name}`,
  });
  // An idle connection cut by the server (a restart) is an event, not a crash:
  // without a listener node-postgres would throw it out of the process.
  pool.on("error", (error) => log.warn("db.idle_connection_lost", { pool: name, error }));
  watchPool(name, pool);
  measurePoolWaits(pool, name);
  const prisma = new PrismaClient({
    adapter: new PrismaPg(pool),
    transactionOptions: { maxWait: database.poolTimeoutMs, timeout: TRANSACTION_TIMEOUT_MS },
  });
  return { pool, prisma };
}

/**
 * Kept on globalThis so that Next's dev-mode module reloading does not open
 * new pools on every edit.
 */
function poolFor(name: PoolName): DbPool {
  const pools = (globalForDb.bankConnectDbPools ??= {});
  pools[name] ??= createPool(name);
  return pools[name];
}

/** The process-wide client of the request pool. */
export function db(): PrismaClient {
  return poolFor("requests").prisma;
}

/** The client of the sync pool: bank syncs and the storing of bank consents only. */
export function syncDb(): PrismaClient {
  return poolFor("sync").prisma;
}

/** The request pool's driver, for lib/db/sql.ts only. */
export function requestPool(): pg.Pool {
  return poolFor("requests").pool;
}

/**
 * The sync pool's driver, for the bulk write transactions of syncs
 * (lib/banking/queries/write-transaction.ts, run by lib/db/sql.ts) only.
 */
export function syncPool(): pg.Pool {
  return poolFor("sync").pool;
}

/** Closes both pools (scripts and tests call this before exiting or re-pointing). */
export async function disconnectDb(): Promise<void> {
  const pools = Object.values(globalForDb.bankConnectDbPools ?? {});
  globalForDb.bankConnectDbPools = undefined;
  await Promise.all(
    pools.map(async ({ pool, prisma }) => {
      await prisma.$disconnect();
      await pool.end();
    }),
  );
}
