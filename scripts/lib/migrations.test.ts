import { createHash, randomBytes } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { dropDatabase, ensureDatabase, withDatabase } from "./embedded-postgres";
import {
  applyMigrations,
  createMigration,
  DEFAULT_MIGRATIONS_DIR,
  DEFAULT_SCHEMA_PATH,
  diffDatabaseToSchema,
} from "./migrations";
import { testServerUrl } from "./test-server";

/** The key Prisma's engines (native and wasm) lock while migrating. */
const PRISMA_LOCK_KEY = 72707369;
const GATE_KEY = 4242;

let serverUrl: string;
let scratchDir: string;
const databases: string[] = [];

beforeAll(async () => {
  serverUrl = await testServerUrl();
  scratchDir = await mkdtemp(path.join(tmpdir(), "migrations-test-"));
});

afterEach(async () => {
  for (const name of databases.splice(0)) await dropDatabase(serverUrl, name);
});

afterAll(async () => {
  await rm(scratchDir, { recursive: true, force: true });
});

/** A fresh, empty database of this test's own; dropped after the test. */
async function scratchDatabase(): Promise<string> {
  const name = `migrations_test_${randomBytes(6).toString("hex")}`;
  databases.push(name);
  await ensureDatabase(serverUrl, name);
  return withDatabase(serverUrl, name);
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function migrationNames(dir = DEFAULT_MIGRATIONS_DIR): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** A copy of the real migrations directory that a test may add to. */
async function copyOfMigrations(): Promise<string> {
  const dir = await mkdtemp(path.join(scratchDir, "migrations-"));
  await cp(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

describe("applyMigrations", () => {
  it("builds schema.prisma's tables in an empty database and records each migration", async () => {
    const url = await scratchDatabase();
    const expected = await migrationNames();
    expect(expected.length).toBeGreaterThan(0);

    const { applied } = await applyMigrations({ databaseUrl: url });
    expect(applied).toEqual(expected);

    const schema = await readFile(DEFAULT_SCHEMA_PATH, "utf8");
    const models = [...schema.matchAll(/^model (\w+) \{/gm)].map((match) => match[1]);
    const tables = await query<{ table_name: string }>(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    expect(tables.map((row) => row.table_name).sort()).toEqual(
      [...models, "_prisma_migrations"].sort(),
    );

    const rows = await query<MigrationRow>(
      url,
      'SELECT * FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((row) => row.migration_name)).toEqual(expected);
    for (const row of rows) {
      const sql = await readFile(
        path.join(DEFAULT_MIGRATIONS_DIR, row.migration_name, "migration.sql"),
      );
      expect(row.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.rolled_back_at).toBeNull();
    }

    // The migrations build exactly what schema.prisma describes.
    expect(await diffDatabaseToSchema({ databaseUrl: url })).toBeNull();
  });

  it("applies nothing the second time", async () => {
    const url = await scratchDatabase();
    await applyMigrations({ databaseUrl: url });
    expect(await applyMigrations({ databaseUrl: url })).toEqual({ applied: [] });
    const rows = await query<MigrationRow>(url, 'SELECT * FROM "_prisma_migrations"');
    expect(rows).toHaveLength((await migrationNames()).length);
  });

  it("lets two concurrent runs both succeed, applying each migration once", async () => {
    const url = await scratchDatabase();
    const expected = await migrationNames();
    const [first, second] = await Promise.all([
      applyMigrations({ databaseUrl: url }),
      applyMigrations({ databaseUrl: url }),
    ]);
    expect([...first.applied, ...second.applied].sort()).toEqual(expected);
    const rows = await query<MigrationRow>(
      url,
      'SELECT * FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.map((row) => row.migration_name)).toEqual(expected);
    expect(rows.every((row) => row.finished_at !== null)).toBe(true);
    expect(await diffDatabaseToSchema({ databaseUrl: url })).toBeNull();
  });

  it("makes a concurrent run wait while another one is migrating", async () => {
    const url = await scratchDatabase();
    const dir = await copyOfMigrations();
    // A migration that blocks until the test opens the gate, so the runs surely overlap.
    const gated = "29991231235959_gated";
    await mkdir(path.join(dir, gated));
    await writeFile(
      path.join(dir, gated, "migration.sql"),
      `SELECT pg_advisory_xact_lock(${GATE_KEY});\n`,
    );
    const gate = new pg.Client({ connectionString: url });
    await gate.connect();
    try {
      await gate.query("SELECT pg_advisory_lock($1)", [GATE_KEY]);
      let reportWaiting = () => {};
      const waiting = new Promise<void>((resolve) => (reportWaiting = resolve));
      const log = (line: string) => line.includes("waiting") && reportWaiting();
      const runs = Promise.all(
        [1, 2].map(() => applyMigrations({ databaseUrl: url, migrationsDir: dir, log })),
      );
      await waiting; // one run holds the migrator lock, stuck at the gate; the other queues
      await gate.query("SELECT pg_advisory_unlock($1)", [GATE_KEY]);
      const [first, second] = await runs;
      expect([...(first?.applied ?? []), ...(second?.applied ?? [])].sort()).toEqual(
        await migrationNames(dir),
      );
    } finally {
      await gate.end();
    }
    const rows = await query<MigrationRow>(url, 'SELECT * FROM "_prisma_migrations"');
    expect(rows).toHaveLength((await migrationNames(dir)).length);
  });

  it("waits for a native `prisma migrate` holding Prisma's advisory lock", async () => {
    const url = await scratchDatabase();
    const native = new pg.Client({ connectionString: url });
    await native.connect();
    try {
      await native.query("SELECT pg_advisory_lock($1)", [PRISMA_LOCK_KEY]);
      const run = applyMigrations({ databaseUrl: url });
      const waiters =
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted";
      await expect
        .poll(
          async () => (await native.query<{ n: number }>(waiters, [PRISMA_LOCK_KEY])).rows[0]?.n,
        )
        .toBe(1);
      await native.query("SELECT pg_advisory_unlock($1)", [PRISMA_LOCK_KEY]);
      expect((await run).applied).toEqual(await migrationNames());
    } finally {
      await native.end();
    }
  });

  it("sends each migration to PostgreSQL whole (semicolons in bodies and literals)", async () => {
    const url = await scratchDatabase();
    const dir = await copyOfMigrations();
    const name = "29991231235959_function";
    await mkdir(path.join(dir, name));
    const sql = [
      "CREATE FUNCTION answer() RETURNS int LANGUAGE plpgsql AS $$",
      "BEGIN",
      "  PERFORM 1;",
      "  RETURN 42;",
      "END",
      "$$;",
      "COMMENT ON FUNCTION answer() IS 'one; two';",
      "",
    ].join("\n");
    await writeFile(path.join(dir, name, "migration.sql"), sql);
    await applyMigrations({ databaseUrl: url, migrationsDir: dir });
    expect(
      await query(url, "SELECT answer() AS value, obj_description('answer'::regproc) AS note"),
    ).toEqual([{ value: 42, note: "one; two" }]);
  });

  it("names the migration that fails, and refuses to go on past it", async () => {
    const url = await scratchDatabase();
    const dir = await copyOfMigrations();
    const broken = "29991231235959_broken";
    await mkdir(path.join(dir, broken));
    await writeFile(
      path.join(dir, broken, "migration.sql"),
      'CREATE TABLE "Fine" (id INT);\nSELEC 1;\n',
    );

    const failure = applyMigrations({ databaseUrl: url, migrationsDir: dir });
    await expect(failure).rejects.toThrow(broken);
    await expect(failure).rejects.toThrow(/syntax error at or near "SELEC"/);
    // PostgreSQL ran the script as one transaction: nothing of it remains.
    const fine = await query(
      url,
      "SELECT 1 FROM information_schema.tables WHERE table_name = 'Fine'",
    );
    expect(fine).toHaveLength(0);

    await expect(applyMigrations({ databaseUrl: url, migrationsDir: dir })).rejects.toThrow(broken);
  });

  it("says so clearly when it cannot reach the database", async () => {
    const url = withDatabase(serverUrl, `missing_${randomBytes(4).toString("hex")}`);
    await expect(applyMigrations({ databaseUrl: url })).rejects.toThrow(
      /cannot connect to the database.*does not exist/,
    );
  });
});

describe("createMigration", () => {
  it("returns null and writes nothing when schema.prisma has not changed", async () => {
    const dir = await copyOfMigrations();
    const before = (await readdir(dir, { recursive: true })).sort();
    expect(
      await createMigration({ name: "nothing", migrationsDir: dir, shadowServerUrl: serverUrl }),
    ).toBeNull();
    expect((await readdir(dir, { recursive: true })).sort()).toEqual(before);
  });

  it("writes the next migration for a changed schema, which then applies cleanly", async () => {
    const dir = await copyOfMigrations();
    const schemaPath = path.join(scratchDir, `schema-${randomBytes(4).toString("hex")}.prisma`);
    const extra =
      "\nmodel ExtraThing {\n  id    Int    @id @default(autoincrement())\n  label String @unique\n}\n";
    await writeFile(schemaPath, (await readFile(DEFAULT_SCHEMA_PATH, "utf8")) + extra);

    const created = await createMigration({
      name: "addExtraThing",
      schemaPath,
      migrationsDir: dir,
      shadowServerUrl: serverUrl,
    });
    expect(created).not.toBeNull();
    const directory = created?.directory ?? "";
    expect(path.basename(directory)).toMatch(/^\d{14}_add_extra_thing$/);
    expect(path.basename(directory) > ((await migrationNames()).at(-1) ?? "")).toBe(true);
    expect(created?.sql).toContain('CREATE TABLE "ExtraThing"');
    expect(created?.sql).toContain('CREATE UNIQUE INDEX "ExtraThing_label_key"');
    expect(created?.sql).not.toContain('CREATE TABLE "User"');
    expect(await readFile(path.join(directory, "migration.sql"), "utf8")).toBe(created?.sql);

    const url = await scratchDatabase();
    const { applied } = await applyMigrations({ databaseUrl: url, migrationsDir: dir });
    expect(applied.at(-1)).toBe(path.basename(directory));
    expect(await diffDatabaseToSchema({ databaseUrl: url, schemaPath })).toBeNull();
    // No shadow database is left behind.
    const shadows = await query(
      serverUrl,
      "SELECT 1 FROM pg_database WHERE datname LIKE 'prisma_migrate_shadow_db_%'",
    );
    expect(shadows).toHaveLength(0);
  });

  it("starts a migrations directory with its lock file", async () => {
    const dir = await mkdtemp(path.join(scratchDir, "empty-"));
    const created = await createMigration({
      name: "init",
      migrationsDir: dir,
      shadowServerUrl: serverUrl,
    });
    expect(created?.sql).toContain('CREATE TABLE "User"');
    expect(await readFile(path.join(dir, "migration_lock.toml"), "utf8")).toMatch(
      /^provider = "postgresql"$/m,
    );
  });

  it("rejects names other than letters, digits and underscores", async () => {
    for (const name of ["", "add-thing", "../escape", "with space"]) {
      await expect(createMigration({ name, shadowServerUrl: serverUrl })).rejects.toThrow(
        /invalid migration name/,
      );
    }
  });
});

describe("the migrations' data steps", () => {
  /** A copy of the real migrations directory holding only those named before `name`. */
  async function migrationsBefore(name: string): Promise<string> {
    const dir = await copyOfMigrations();
    for (const later of (await migrationNames(dir)).filter((migration) => migration >= name)) {
      await rm(path.join(dir, later), { recursive: true });
    }
    return dir;
  }

  it("balances_kept_apart numbers each account's stored balances in their order by type", async () => {
    const [migration] = (await migrationNames()).filter((name) =>
      name.endsWith("_balances_kept_apart"),
    );
    const url = await scratchDatabase();
    await applyMigrations({
      databaseUrl: url,
      migrationsDir: await migrationsBefore(migration ?? ""),
    });
    const [first, second] = [
      "8d6d7b3e-0b43-4c0b-9a51-000000000001",
      "8d6d7b3e-0b43-4c0b-9a51-000000000002",
    ];
    // Balances as the old key allowed them (one per type); the accounts themselves do not matter
    // here, so this session does not check their references.
    await query(
      url,
      `SET session_replication_role = replica;
       INSERT INTO "Balance" ("id", "accountId", "balanceType", "currency", "enc", "updatedAt") VALUES
         (gen_random_uuid(), '${first}', 'OTHR', 'EUR', 'e', now()),
         (gen_random_uuid(), '${first}', 'ITAV', 'EUR', 'e', now()),
         (gen_random_uuid(), '${first}', 'ITBD', 'EUR', 'e', now()),
         (gen_random_uuid(), '${second}', 'ITBD', 'DKK', 'e', now())`,
    );
    await applyMigrations({ databaseUrl: url });
    const rows = await query<{ accountId: string; balanceType: string; position: number }>(
      url,
      `SELECT "accountId", "balanceType", "position" FROM "Balance" ORDER BY "accountId", "position"`,
    );
    expect(rows).toEqual([
      { accountId: first, balanceType: "ITAV", position: 0 },
      { accountId: first, balanceType: "ITBD", position: 1 },
      { accountId: first, balanceType: "OTHR", position: 2 },
      { accountId: second, balanceType: "ITBD", position: 0 },
    ]);
    expect(await diffDatabaseToSchema({ databaseUrl: url })).toBeNull();
  });

  it("passkeys counts the key of each user who has one as backed up since it was registered", async () => {
    const [migration] = (await migrationNames()).filter((name) => name.endsWith("_passkeys"));
    const url = await scratchDatabase();
    await applyMigrations({
      databaseUrl: url,
      migrationsDir: await migrationsBefore(migration ?? ""),
    });
    // Setup registered a key only after its backup was confirmed; a user without a key has none.
    await query(
      url,
      `INSERT INTO "User" ("id", "email", "publicKey", "publicKeyAt", "updatedAt") VALUES
         ('8d6d7b3e-0b43-4c0b-9a51-0000000000a1', 'keyed@example.com', 'BAAA', '2026-03-01T10:00:00Z', now()),
         ('8d6d7b3e-0b43-4c0b-9a51-0000000000a2', 'keyless@example.com', NULL, NULL, now())`,
    );
    await applyMigrations({ databaseUrl: url });
    const rows = await query<{ email: string; keyBackupAt: Date | null }>(
      url,
      `SELECT "email", "keyBackupAt" FROM "User" ORDER BY "email"`,
    );
    expect(rows).toEqual([
      { email: "keyed@example.com", keyBackupAt: new Date("2026-03-01T10:00:00Z") },
      { email: "keyless@example.com", keyBackupAt: null },
    ]);
  });
});
