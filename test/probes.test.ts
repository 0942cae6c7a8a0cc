import { readdirSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readyzRoute } from "../lib/api/direct-routes";
import { db, disconnectDb } from "../lib/db/client";
import { rawSetting, setDatabaseUrl, setSetting } from "../lib/env";
import {
  dropDatabase,
  ensureDatabase,
  findFreePort,
  withDatabase,
} from "../scripts/lib/embedded-postgres";
import { startServiceServer, type RunningServiceServer } from "./service-server";

/**
 * Liveness and readiness over real HTTP through the service's own server:
 * liveness asks nothing of the database, readiness says which check failed
 * and why (docs/operations.md, "Probes").
 */

const migrated = rawSetting("DATABASE_URL") ?? "";
const serverUrl = rawSetting("TEST_SERVER_URL") ?? "";
const SHIPPED = readdirSync(path.resolve(import.meta.dirname, "../prisma/migrations"), {
  withFileTypes: true,
})
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const scratch = `probes_${process.pid}`;

let server: RunningServiceServer;

beforeAll(async () => {
  server = await startServiceServer();
  // The first connection of a cold pool on a busy machine can outlast the probe's 2 s.
  await db().$queryRaw`SELECT 1`;
});
afterAll(async () => {
  await server.close();
  await disconnectDb();
  setDatabaseUrl(migrated);
  await dropDatabase(serverUrl, scratch);
});
afterEach(async () => {
  await disconnectDb();
  setDatabaseUrl(migrated);
  setSetting("UPSTREAM", "");
  setSetting("ENABLE_BANKING_APPLICATION_ID", "");
});

async function get(pathname: string) {
  const response = await fetch(`${server.origin}${pathname}`);
  return {
    status: response.status,
    cacheControl: response.headers.get("cache-control"),
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** PostgreSQL gone: a port nothing listens on refuses every connection, as a stopped server does. */
async function databaseDown() {
  const port = await findFreePort();
  setDatabaseUrl(`postgresql://postgres:secret-password@127.0.0.1:${port}/none`);
  await disconnectDb();
}

describe("probes", () => {
  it("both answer 200 when the database is up and migrated", async () => {
    expect(await get("/livez")).toEqual({
      status: 200,
      cacheControl: "no-store",
      body: { status: "ok" },
    });
    expect(await get("/readyz")).toEqual({
      status: 200,
      cacheControl: "no-store",
      body: {
        status: "ready",
        checks: {
          database: { status: "ok" },
          migrations: { status: "ok" },
          upstream: { status: "ok" },
        },
      },
    });
  });

  it("liveness stays 200 while PostgreSQL is down; readiness answers 503 naming the database", async () => {
    await databaseDown();
    expect((await get("/livez")).status).toBe(200);
    const ready = await get("/readyz");
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({
      status: "not_ready",
      checks: {
        database: { status: "failed", reason: expect.stringContaining("unreachable") as string },
        migrations: { status: "skipped", reason: "the database is unreachable" },
        upstream: { status: "ok" },
      },
    });
    expect(JSON.stringify(ready.body)).not.toMatch(/secret-password|127\.0\.0\.1/);
    // The combined answer keeps its meaning for existing monitors.
    expect((await get("/healthz")).status).toBe(503);
  });

  it("readiness lists the migrations a database has not applied", async () => {
    await ensureDatabase(serverUrl, scratch);
    const client = new pg.Client({ connectionString: withDatabase(serverUrl, scratch) });
    await client.connect();
    try {
      setDatabaseUrl(withDatabase(serverUrl, scratch));
      await disconnectDb();
      // A database never migrated: every shipped migration is pending.
      const empty = await get("/readyz");
      expect(empty.status).toBe(503);
      expect(empty.body.checks).toMatchObject({
        database: { status: "ok" },
        migrations: {
          status: "failed",
          reason: `${SHIPPED.length} migrations not applied: ${SHIPPED.join(", ")}`,
        },
      });

      // All applied but the newest, whose attempt failed (finished_at stays empty).
      await client.query(`CREATE TABLE _prisma_migrations (
        migration_name text PRIMARY KEY, finished_at timestamptz, rolled_back_at timestamptz)`);
      for (const name of SHIPPED.slice(0, -1)) {
        await client.query("INSERT INTO _prisma_migrations VALUES ($1, now(), NULL)", [name]);
      }
      await client.query("INSERT INTO _prisma_migrations VALUES ($1, NULL, NULL)", [
        SHIPPED.at(-1),
      ]);
      const behind = await get("/readyz");
      expect(behind.status).toBe(503);
      expect(behind.body.checks).toMatchObject({
        migrations: { status: "failed", reason: `1 migration not applied: ${SHIPPED.at(-1)}` },
      });
      expect((await get("/livez")).status).toBe(200);
    } finally {
      await client.end();
    }
  });

  it("readiness answers 503 when the chosen bank aggregator lacks its settings, naming them only", async () => {
    // The service refuses to start with such settings; asked in-process, readiness still says why.
    setSetting("UPSTREAM", "enablebanking");
    setSetting("ENABLE_BANKING_APPLICATION_ID", "");
    const response = await readyzRoute();
    expect(response.status).toBe(503);
    expect(((await response.json()) as Record<string, unknown>).checks).toEqual({
      database: { status: "skipped", reason: "the settings are invalid" },
      migrations: { status: "skipped", reason: "the database is unreachable" },
      upstream: {
        status: "failed",
        reason: expect.stringContaining("ENABLE_BANKING_APPLICATION_ID is required") as string,
      },
    });
  });
});
