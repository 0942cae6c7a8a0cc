import { query, sql } from "../db/sql";
import { log } from "../log";

/**
 * When an API key was last used, for the user's "My access" page: recorded
 * without a write on the data API's path. Each request only adds its key's
 * id to an in-memory set; every FLUSH_INTERVAL_MS one UPDATE stamps all the
 * keys seen since the last flush, and the process flushes once more when it
 * stops. The time is therefore at most one interval late, which is all a
 * person reading "last used" needs.
 */

export const FLUSH_INTERVAL_MS = 10_000;

const pending = new Set<string>();
let timer: ReturnType<typeof setInterval> | null = null;

/** Notes one use of the key `apiKeyId`; written by the next flush. */
export function noteKeyUsed(apiKeyId: string): void {
  pending.add(apiKeyId);
  if (timer === null) {
    timer = setInterval(() => void flushKeyUses().catch(logFailure), FLUSH_INTERVAL_MS);
    // The timer alone never keeps a process alive; shutdown flushes what is left.
    timer.unref();
  }
}

const logFailure = (error: unknown) =>
  log.warn("api_key.last_use_flush_failed", {
    error: error instanceof Error ? error.message : String(error),
  });

/**
 * Writes every use noted since the last flush in one statement. Ids taken
 * from the set go back into it when the write fails, so a database outage
 * delays the stamp instead of losing it.
 */
export async function flushKeyUses(now = new Date()): Promise<number> {
  if (pending.size === 0) return 0;
  const ids = [...pending];
  pending.clear();
  try {
    await query(
      sql`UPDATE "ApiKey" SET "lastUsedAt" = ${now}
           WHERE "id" = ANY(${ids}::uuid[])
             AND ("lastUsedAt" IS NULL OR "lastUsedAt" < ${now})`,
    );
  } catch (error) {
    for (const id of ids) pending.add(id);
    throw error;
  }
  return ids.length;
}

/** Uses noted and not yet written (for tests and the shutdown flush). */
export const pendingKeyUses = () => pending.size;

/**
 * The flush the launcher runs on shutdown. Next's bundle holds its own copy
 * of this module, so the bundle registers its flush on a process-wide symbol
 * and the launcher calls whatever is registered there.
 */
const SHUTDOWN_FLUSH = Symbol.for("bank-connect.flush-key-uses");

type FlushHolder = { [SHUTDOWN_FLUSH]?: () => Promise<number> };
(globalThis as FlushHolder)[SHUTDOWN_FLUSH] = () => flushKeyUses();

export async function flushKeyUsesOnShutdown(): Promise<void> {
  const flush = (globalThis as FlushHolder)[SHUTDOWN_FLUSH];
  if (flush) await flush().catch(logFailure);
}
