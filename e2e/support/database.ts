import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { setDatabaseUrl } from "../../lib/env";
import { E2E_PORT } from "./origin";

/**
 * The journeys' server writes its database URL here, so that tests can set
 * up partners and read the mail outbox in the same database. One file per
 * port: runs on other ports (E2E_PORT) keep their own databases.
 */
const HANDOFF = path.resolve(import.meta.dirname, `../../.data/e2e-database-${E2E_PORT}.json`);

export function publishDatabaseUrl(url: string): void {
  writeFileSync(HANDOFF, JSON.stringify({ url }), { mode: 0o600 });
}

/** The journeys' database URL, as their server published it. */
export function journeyDatabaseUrl(): string {
  return (JSON.parse(readFileSync(HANDOFF, "utf8")) as { url: string }).url;
}

/** Points this test process at the journeys' database. */
export function connectJourneyDatabase(): void {
  setDatabaseUrl(journeyDatabaseUrl());
}
