import type pg from "pg";
import { requestPool } from "../lib/db/client";

/**
 * Counts the statements this process sends on the request pool while `run`
 * runs: Prisma's and the hand-written ones alike, inside transactions too.
 * Every checkout of a connection passes the pool's `acquire` event, where
 * the connection's `query` is wrapped once to report to the counter that is
 * active. Real statements on the real database; nothing is replaced.
 */

let active: string[] | null = null;
const wrapped = new WeakSet<pg.PoolClient>();

function watch(client: pg.PoolClient) {
  if (wrapped.has(client)) return;
  wrapped.add(client);
  const original = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
    const [config] = args;
    const text = typeof config === "string" ? config : (config as { text?: string }).text;
    active?.push((text ?? "").replace(/\s+/g, " ").trim());
    return original(...args);
  };
}

export async function countStatements<T>(
  run: () => Promise<T>,
): Promise<{ result: T; statements: string[] }> {
  if (active) throw new Error("countStatements does not nest");
  const pool = requestPool();
  const statements: string[] = [];
  active = statements;
  pool.on("acquire", watch);
  try {
    return { result: await run(), statements };
  } finally {
    pool.off("acquire", watch);
    active = null;
  }
}
