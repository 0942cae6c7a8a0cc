import { performance } from "node:perf_hooks";
import type pg from "pg";
import { observePoolWait } from "../metrics";

/**
 * Observes how long each caller of a pool waits for a connection
 * (`bank_connect_db_pool_wait_seconds`, docs/observability.md): from asking to
 * holding one, a new connection's setup included, and until the pool's
 * timeout when none came. Every query goes through `connect` (pg's
 * `pool.query` and Prisma's driver adapter alike), so this one place sees
 * them all.
 */
export function measurePoolWaits(pool: pg.Pool, name: string): void {
  const connect = pool.connect.bind(pool) as (
    callback?: (error: Error | undefined, client?: pg.PoolClient, done?: () => void) => void,
  ) => Promise<pg.PoolClient> | undefined;
  const measured = (callback?: Parameters<typeof connect>[0]) => {
    const started = performance.now();
    const observe = () => observePoolWait(name, (performance.now() - started) / 1000);
    if (callback) {
      return connect((error, client, done) => {
        observe();
        callback(error, client, done);
      });
    }
    return connect()?.then(
      (client) => {
        observe();
        return client;
      },
      (error: unknown) => {
        observe();
        throw error;
      },
    );
  };
  pool.connect = measured as typeof pool.connect;
}
