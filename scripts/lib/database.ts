import path from "node:path";
import { getEnv, setDatabaseUrl } from "../../lib/env";
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedServer } from "./embedded-postgres";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const DATA_DIR = path.join(REPO_ROOT, ".data");
const DEV_DATABASE = "bank_connect";
const DEV_PREFERRED_PORT = 54329;

export interface ResolvedDatabase {
  url: string;
  /** Set when this process started an embedded server it must stop. */
  embedded?: EmbeddedServer;
}

/**
 * DATABASE_URL when set; otherwise the project's embedded PostgreSQL with its
 * data in .data/postgres (kept across restarts). Either way this process and
 * its children use the resulting URL.
 */
export async function resolveDatabase(log: (line: string) => void): Promise<ResolvedDatabase> {
  const configured = getEnv().databaseUrl;
  if (configured) return { url: configured };

  log("DATABASE_URL is not set: starting the embedded PostgreSQL (data in .data/postgres)");
  const embedded = await startEmbeddedPostgres({
    dataDir: path.join(DATA_DIR, "postgres"),
    persistent: true,
    preferredPort: DEV_PREFERRED_PORT,
  });
  await ensureDatabase(embedded.url("postgres"), DEV_DATABASE);
  const url = embedded.url(DEV_DATABASE);
  setDatabaseUrl(url);
  return { url, embedded };
}
