import { rawSetting, setDatabaseUrl, setSetting } from "../lib/env";
import { createTestDatabase } from "./test-database";

/**
 * Vitest global setup: every run gets a freshly migrated database of its own
 * (docs/architecture.md#tests: DB-touching tests run against a real
 * PostgreSQL). Test workers
 * inherit DATABASE_URL, and TEST_SERVER_URL for tests that need scratch
 * databases of their own.
 */
export default async function setup() {
  const database = await createTestDatabase("unit");
  const previous = rawSetting("DATABASE_URL");
  setDatabaseUrl(database.url);
  setSetting("TEST_SERVER_URL", database.serverUrl);
  return async () => {
    await database.release();
    if (previous) setDatabaseUrl(previous);
  };
}
