import path from "node:path";
import { getEnv, rawSetting, setDatabaseUrl } from "../../lib/env";
import {
  ensureDatabase,
  findRunningEmbeddedUrl,
  startEmbeddedPostgres,
  type EmbeddedServer,
} from "./embedded-postgres";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
/** Next's and tsx's command-line entry points, for child processes. */
export const NEXT_BIN = path.join(REPO_ROOT, "node_modules", "next", "dist", "bin", "next");
export const TSX_CLI = path.join(REPO_ROOT, "node_modules", "tsx", "dist", "cli.mjs");
/** The production build's directory (NEXT_DIST_DIR, default .next; next.config.ts reads the same). */
export const distDir = () => rawSetting("NEXT_DIST_DIR") ?? ".next";
/** Where embedded PostgreSQL clusters live (DATA_DIR, default .data). */
export const dataDir = () => path.resolve(REPO_ROOT, getEnv().dataDir);
const DEV_DATABASE = "bank_connect";
const DEV_PREFERRED_PORT = 54329;

export interface ResolvedDatabase {
  url: string;
  /** Set when this process started an embedded server it must stop. */
  embedded?: EmbeddedServer;
}

/**
 * DATABASE_URL when set; otherwise the project's embedded PostgreSQL with its
 * data in .data/postgres (kept across restarts), started here unless a
 * running `npm run dev` already serves it. Either way this process and its
 * children use the resulting URL.
 */
export async function resolveDatabase(log: (line: string) => void): Promise<ResolvedDatabase> {
  const configured = getEnv().databaseUrl;
  if (configured) return { url: configured };

  const directory = path.join(dataDir(), "postgres");
  const running = await findRunningEmbeddedUrl(directory, DEV_DATABASE);
  if (running) {
    setDatabaseUrl(running);
    return { url: running };
  }
  log(
    `DATABASE_URL is not set: starting the embedded PostgreSQL (data in ${path.relative(REPO_ROOT, directory)})`,
  );
  const embedded = await startEmbeddedPostgres({
    dataDir: directory,
    persistent: true,
    preferredPort: DEV_PREFERRED_PORT,
  });
  await ensureDatabase(embedded.url("postgres"), DEV_DATABASE);
  const url = embedded.url(DEV_DATABASE);
  setDatabaseUrl(url);
  return { url, embedded };
}
