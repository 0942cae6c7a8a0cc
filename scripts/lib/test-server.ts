import { rawSetting } from "../../lib/env";

/**
 * The PostgreSQL server tests may create scratch databases on: a connection
 * string to its `postgres` database, exported as TEST_SERVER_URL by the Vitest
 * global setup (test/global-setup.ts).
 */
export async function testServerUrl(): Promise<string> {
  const url = rawSetting("TEST_SERVER_URL");
  if (!url) {
    throw new Error(
      "TEST_SERVER_URL is not set: run the tests through Vitest (its global setup provides a PostgreSQL server), " +
        "or export TEST_SERVER_URL=postgresql://…/postgres",
    );
  }
  return url;
}
