import { randomBytes } from "node:crypto";
import pg from "pg";
import type { PrismaClient } from "../lib/db/client";
import { disconnectDb } from "../lib/db/client";
import { rawSetting, setDatabaseUrl, setSetting } from "../lib/env";
import { dropDatabase, ensureDatabase, withDatabase } from "../scripts/lib/embedded-postgres";
import { applyMigrations } from "../scripts/lib/migrations";
import { testServerUrl } from "../scripts/lib/test-server";

/**
 * Tools for the tests that put the database under pressure: a migrated
 * database of the test file's own (its table locks and killed backends touch
 * no other test), connections held open, and a second client that takes
 * locks and finds whom they block.
 */

export interface ScratchDatabase {
  url: string;
  release(): Promise<void>;
}

/**
 * Points this process at a fresh migrated database with `settings` applied
 * (pool sizes, timeouts), on new pools; `release()` restores the run's.
 */
export async function useScratchDatabase(
  label: string,
  settings: Record<string, string> = {},
): Promise<ScratchDatabase> {
  const serverUrl = await testServerUrl();
  const name = `bank_connect_${label}_${randomBytes(5).toString("hex")}`;
  await ensureDatabase(serverUrl, name);
  const url = withDatabase(serverUrl, name);
  await applyMigrations({ databaseUrl: url });
  const previousUrl = rawSetting("DATABASE_URL");
  const previous = Object.fromEntries(Object.keys(settings).map((key) => [key, rawSetting(key)]));
  await disconnectDb();
  setDatabaseUrl(url);
  for (const [key, value] of Object.entries(settings)) setSetting(key, value);
  return {
    url,
    async release() {
      await disconnectDb();
      for (const [key, value] of Object.entries(previous)) setSetting(key, value ?? "");
      if (previousUrl) setDatabaseUrl(previousUrl);
      await dropDatabase(serverUrl, name);
    },
  };
}

/**
 * Holds `count` connections of `client` in open transactions until the
 * returned function is called (which waits for them to end).
 */
export async function holdConnections(
  client: PrismaClient,
  count: number,
): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const holders = Array.from({ length: count }, () => {
    let markHeld!: () => void;
    const held = new Promise<void>((resolve) => (markHeld = resolve));
    const done = client.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        markHeld();
        await released;
      },
      { timeout: 120_000 },
    );
    return { held, done };
  });
  await Promise.all(holders.map((holder) => holder.held));
  return async () => {
    release();
    await Promise.all(holders.map((holder) => holder.done));
  };
}

/** A plain second connection: takes locks, watches and ends backends. */
export class SideConnection {
  private constructor(readonly client: pg.Client) {}

  static async open(url: string): Promise<SideConnection> {
    const client = new pg.Client({ connectionString: url });
    client.on("error", () => undefined);
    await client.connect();
    return new SideConnection(client);
  }

  /** Opens a transaction that holds `sql`'s locks (e.g. LOCK TABLE, SELECT … FOR UPDATE). */
  async lock(sql: string, values: unknown[] = []): Promise<void> {
    await this.client.query("BEGIN");
    await this.client.query(sql, values);
  }

  async unlock(): Promise<void> {
    await this.client.query("ROLLBACK");
  }

  /** pg_stat_activity is read once per transaction unless the snapshot is dropped. */
  private async freshStatistics(): Promise<void> {
    await this.client.query("SELECT pg_stat_clear_snapshot()");
  }

  /** Waits until `count` backends wait on this connection's locks; returns their pids. */
  async waitForBlocked(count: number): Promise<number[]> {
    const own = await this.client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const holder = own.rows[0]?.pid;
    for (;;) {
      await this.freshStatistics();
      const blocked = await this.client.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) ORDER BY backend_start",
        [holder],
      );
      if (blocked.rows.length >= count) return blocked.rows.map((row) => row.pid);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Ends a backend and waits until it is gone. */
  async terminate(pid: number): Promise<void> {
    await this.client.query("SELECT pg_terminate_backend($1)", [pid]);
    for (;;) {
      await this.freshStatistics();
      const found = await this.client.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid]);
      if (found.rowCount === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}
