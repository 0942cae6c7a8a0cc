import { disconnectDb } from "../../lib/db/client";
import { getEnv } from "../../lib/env";

/**
 * The database an admin command works on: DATABASE_URL when set; otherwise the
 * project's embedded PostgreSQL (.data/postgres, as `npm run dev` uses it),
 * started and migrated for the command and stopped after it. Tooling is loaded
 * only on that path, so a configured run starts fast.
 */
export async function openAdminDatabase(
  log: (line: string) => void,
): Promise<{ close(): Promise<void> }> {
  if (getEnv().databaseUrl) return { close: disconnectDb };
  const { resolveDatabase } = await import("../lib/database");
  const { applyMigrations } = await import("../lib/migrations");
  const { url, embedded } = await resolveDatabase(log).catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${reason} (or set DATABASE_URL to reach a running database)`, {
      cause: error,
    });
  });
  try {
    await applyMigrations({ databaseUrl: url });
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  return {
    async close() {
      await disconnectDb();
      await embedded?.stop();
    },
  };
}
