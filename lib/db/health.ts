import { db } from "./client";

/** True when a round trip to the database succeeds within the timeout. */
export async function isDatabaseReachable(timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = db().$queryRaw`SELECT 1`.then(() => true as const).catch(() => false as const);
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
