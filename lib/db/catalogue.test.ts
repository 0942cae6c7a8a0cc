import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PgBoss } from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "../env";
import { JOBS_SCHEMA } from "../jobs/runtime";
import { disconnectDb, requestPool } from "./client";
import { compile, declaredStatements } from "./sql";

/**
 * Every hand-written statement (docs/database.md#hand-written-statements) is
 * prepared against the migrated schema in each of its declared forms: a
 * renamed or misspelled table or column fails here, under the statement's
 * name, whether or not another test happens to run it.
 */

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The query modules: every `queries.ts`, and every file of a `queries/` folder, under lib/. */
function queryModules(dir = path.join(ROOT, "lib")): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : queryModules(full);
    const isModule =
      /\.ts$/.test(entry.name) &&
      !/\.test\.ts$/.test(entry.name) &&
      (entry.name === "queries.ts" || path.basename(dir) === "queries");
    return isModule ? [full] : [];
  });
}

const modules = queryModules();
/** The names declared in each module's source, as `statement("name", …`. */
const declaredInSource = modules.flatMap((file) =>
  [...readFileSync(file, "utf8").matchAll(/\bstatement(?:<[^>]*>)?\(\s*"([^"]+)"/g)].map(
    (match) => ({ file: path.relative(ROOT, file), name: match[1]! }),
  ),
);

beforeAll(async () => {
  // pg-boss' tables (read by lib/jobs/queries.ts) exist once pg-boss has started on the database.
  const boss = new PgBoss({
    connectionString: getEnv().databaseUrl,
    schema: JOBS_SCHEMA,
    supervise: false,
    schedule: false,
  });
  await boss.start();
  await boss.stop({ graceful: false });
  for (const file of modules) await import(pathToFileURL(file).href);
});

afterAll(() => disconnectDb());

describe("the statement catalogue", () => {
  it("finds the query modules and their statements", () => {
    expect(modules.length).toBeGreaterThan(0);
    expect(declaredInSource.length).toBeGreaterThan(0);
  });

  it("has one statement per name", () => {
    const names = declaredInSource.map((entry) => entry.name);
    const repeated = names.filter((name, index) => names.indexOf(name) !== index);
    expect(repeated).toEqual([]);
  });

  it("holds every statement its modules declare", () => {
    const loaded = new Set(declaredStatements().map((entry) => entry.name));
    const missing = declaredInSource.filter((entry) => !loaded.has(entry.name));
    expect(missing).toEqual([]);
  });
});

describe.each(declaredInSource.map((entry) => [entry.name, entry.file] as const))(
  "statement %s (%s)",
  (name) => {
    it("prepares against the migrated schema in every declared form", async () => {
      const entry = declaredStatements().find((candidate) => candidate.name === name);
      expect(entry, `${name} is not loaded`).toBeDefined();
      expect(entry!.examples.length).toBeGreaterThan(0);
      const client = await requestPool().connect();
      try {
        for (const [index, example] of entry!.examples.entries()) {
          const { text } = compile(entry!.build(...(example as never[])));
          const prepared = `catalogue_check_${index}`;
          try {
            await client.query(`PREPARE ${prepared} AS ${text}`);
          } catch (error) {
            throw new Error(`${name}, form ${index + 1}: ${(error as Error).message}\n${text}`);
          }
          await client.query(`DEALLOCATE ${prepared}`);
        }
      } finally {
        client.release();
      }
    });
  },
);
