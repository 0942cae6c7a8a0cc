import { randomBytes } from "node:crypto";
import path from "node:path";
import { getEnv } from "../lib/env";
import {
  dropDatabase,
  ensureDatabase,
  startEmbeddedPostgres,
  withDatabase,
  type EmbeddedServer,
} from "../scripts/lib/embedded-postgres";
import { dataDir } from "../scripts/lib/database";
import { applyMigrations } from "../scripts/lib/migrations";

/**
 * A database of its own for one test run: created on the server named by
 * DATABASE_URL when set (its database part is replaced), otherwise on an
 * embedded PostgreSQL that lives only as long as the run. Migrated, and
 * dropped again by `release()`.
 */
export interface TestDatabase {
  /** Connection string of the run's migrated database. */
  url: string;
  /** The server's maintenance database, for creating scratch databases. */
  serverUrl: string;
  release(): Promise<void>;
}

export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const configured = getEnv().databaseUrl;
  let embedded: EmbeddedServer | undefined;
  let serverUrl: string;
  if (configured) {
    serverUrl = withDatabase(configured, "postgres");
  } else {
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(dataDir(), `${label}-postgres-${process.pid}`),
      persistent: false,
    });
    serverUrl = embedded.url("postgres");
  }
  const name = `bank_connect_${label}_${randomBytes(5).toString("hex")}`;
  await ensureDatabase(serverUrl, name);
  const url = withDatabase(serverUrl, name);
  await applyMigrations({ databaseUrl: url });
  return {
    url,
    serverUrl,
    async release() {
      await dropDatabase(serverUrl, name).catch(() => undefined);
      await embedded?.stop();
    },
  };
}
