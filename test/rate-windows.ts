const MINUTE = 60_000;

/**
 * Rate-limit windows are aligned to the minute (lib/ratelimit/store.ts). A
 * burst that must land in one window starts early in one: if fewer than 15 s
 * are left, wait for the next window to begin.
 */
export async function atWindowStart(): Promise<void> {
  const remaining = MINUTE - (Date.now() % MINUTE);
  if (remaining < 15_000) await new Promise((resolve) => setTimeout(resolve, remaining + 50));
}
