import { rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SideConnection } from "@/test/db-pressure";
import { createTestClient, issueCode, newVerifier, tokenRequest } from "@/test/oauth-fixtures";
import { dataDir } from "@/scripts/lib/database";
import {
  ensureDatabase,
  startEmbeddedPostgres,
  type EmbeddedServer,
} from "@/scripts/lib/embedded-postgres";
import { applyMigrations } from "@/scripts/lib/migrations";
import { rawSetting, setDatabaseUrl } from "../env";
import { handleTokenRequest } from "../oauth/token";
import { db, disconnectDb } from "./client";

/**
 * A PostgreSQL crash in the middle of a token exchange: the backend serving
 * it is killed (SIGKILL), so its connection drops without any error message
 * and the server restarts. On a server of this file's own, since a crash
 * takes every other connection down with it.
 */

let server: EmbeddedServer;
let url: string;
let previousUrl: string | undefined;
const clusterDir = path.join(dataDir(), `crash-postgres-${process.pid}`);

beforeAll(async () => {
  server = await startEmbeddedPostgres({ dataDir: clusterDir, persistent: false });
  await ensureDatabase(server.url("postgres"), "bank_connect_crash");
  url = server.url("bank_connect_crash");
  await applyMigrations({ databaseUrl: url });
  previousUrl = rawSetting("DATABASE_URL");
  await disconnectDb();
  setDatabaseUrl(url);
});

afterAll(async () => {
  await disconnectDb();
  if (previousUrl) setDatabaseUrl(previousUrl);
  await server.stop();
  // The restart after the crash can leave the (emptied) directory behind.
  await rm(clusterDir, { recursive: true, force: true });
});

async function waitForRecovery() {
  for (;;) {
    const ready = await db().$queryRaw`SELECT 1`.then(() => true).catch(() => false);
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("a PostgreSQL crash during a token exchange", () => {
  it("answers 503 temporarily_unavailable with Retry-After, and the code still works afterwards", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);

    // The exchange's transaction waits on this row lock; then its backend is killed.
    const side = await SideConnection.open(url);
    await side.lock('SELECT id FROM "AuthorizationCode" FOR UPDATE');
    const exchange = handleTokenRequest(tokenRequest(client, code, verifier));
    const [pid] = await side.waitForBlocked(1);
    process.kill(pid ?? 0, "SIGKILL");

    const response = await exchange;
    expect(response.status).toBe(503);
    expect(response.headers.get("Retry-After")).toBe("5");
    expect(await response.json()).toEqual({
      error: "temporarily_unavailable",
      error_description: expect.any(String),
    });
    await side.close().catch(() => undefined);

    // Nothing was half-written: the code was not consumed and can be exchanged once.
    await waitForRecovery();
    const again = await handleTokenRequest(tokenRequest(client, code, verifier));
    expect(again.status).toBe(200);
    expect((await handleTokenRequest(tokenRequest(client, code, verifier))).status).toBe(400);
  });
});
