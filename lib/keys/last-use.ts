import { log } from "../log";
import { stampKeysUsed } from "./queries";

/**
 * When an API key was last used, for the user's "My access" page: recorded
 * without a write on the data API's path. Each request only adds its key's
 * id to an in-memory set; every FLUSH_INTERVAL_MS one UPDATE stamps all the
 * keys seen since the last flush, and the process flushes once more when it
 * stops. The time is therefore at most one interval late, which is all a
 * person reading "last used" needs.
 */

export const FLUSH_INTERVAL_MS = 10_000;

/**
 * One set and one timer per process, on globalThis: the service's HTTP server
 * (which answers the data API itself, lib/api/direct-routes.ts) and Next's
 * bundle each load their own copy of this module, and a use noted by either
 * must be written by the same flush, the shutdown's included.
 */
const STATE = Symbol.for("bank-connect.key-uses");
type KeyUses = { pending: Set<string>; timer: ReturnType<typeof setInterval> | null };
const state = ((globalThis as { [STATE]?: KeyUses })[STATE] ??= {
  pending: new Set(),
  timer: null,
});
const pending = state.pending;

/** Notes one use of the key `apiKeyId`; written by the next flush. */
export function noteKeyUsed(apiKeyId: string): void {
  pending.add(apiKeyId);
  if (state.timer === null) {
    state.timer = setInterval(() => void flushKeyUses().catch(logFailure), FLUSH_INTERVAL_MS);
    // The timer alone never keeps a process alive; shutdown flushes what is left.
    state.timer.unref();
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
    await stampKeysUsed(ids, now);
  } catch (error) {
    for (const id of ids) pending.add(id);
    throw error;
  }
  return ids.length;
}

/** Uses noted and not yet written (for tests and the shutdown flush). */
export const pendingKeyUses = () => pending.size;

/** The flush the launcher runs on shutdown: every use this process noted, by either copy. */
export async function flushKeyUsesOnShutdown(): Promise<void> {
  await flushKeyUses().catch(logFailure);
}
