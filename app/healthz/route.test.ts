import { afterEach, describe, expect, it } from "vitest";
import { disconnectDb } from "@/lib/db/client";
import { rawSetting, setDatabaseUrl } from "@/lib/env";
import { findFreePort } from "@/scripts/lib/embedded-postgres";
import { GET } from "./route";

const migrated = rawSetting("DATABASE_URL") ?? "";

afterEach(async () => {
  await disconnectDb();
  setDatabaseUrl(migrated);
});

describe("GET /healthz", () => {
  it("answers 200 when the database is reachable", async () => {
    const response = await GET();
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", database: "ok" });
  });

  it("answers 503 when the database is down", async () => {
    // A port nothing listens on: connections are refused, as when PostgreSQL is stopped.
    const port = await findFreePort();
    setDatabaseUrl(`postgresql://postgres:x@127.0.0.1:${port}/none`);
    await disconnectDb();
    const response = await GET();
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ status: "unavailable", database: "unreachable" });
    expect(response.headers.get("cache-control")).toBe("no-store");
  });
});
