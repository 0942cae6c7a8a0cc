import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setDatabaseUrl } from "../../lib/env";

/**
 * The journeys' server writes its database URL here, so that tests can set
 * up partners and read the mail outbox in the same database.
 */
const HANDOFF = path.resolve(import.meta.dirname, "../../.data/e2e-database.json");

export function publishDatabaseUrl(url: string): void {
  writeFileSync(HANDOFF, JSON.stringify({ url }), { mode: 0o600 });
}

/** Points this test process at the journeys' database. */
export function connectJourneyDatabase(): void {
  const { url } = JSON.parse(readFileSync(HANDOFF, "utf8")) as { url: string };
  setDatabaseUrl(url);
}
