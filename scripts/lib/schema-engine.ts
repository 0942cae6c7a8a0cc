import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
// The schema engine needs the driver adapter (not the Prisma client that the fence keeps in lib/db).
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import * as runtime from "@prisma/schema-engine-wasm/schema_engine_bg";
import pg from "pg";

/**
 * Prisma's WebAssembly schema engine (@prisma/schema-engine-wasm, the engine
 * line Prisma 7.10 uses), wired to PostgreSQL through @prisma/adapter-pg the
 * way Prisma's own migrate package wires it, plus the fixes the adapter needs
 * for migrations. Used by ./migrations.ts.
 */

export type Log = (line: string) => void;
export type Engine = runtime.SchemaEngine;

/** PostgreSQL's internal one-byte "char" type (pg_constraint.contype...) and text. */
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

// wasm-bindgen keeps the instance in module state: instantiate once per process.
let engineClass: Promise<typeof runtime.SchemaEngine> | undefined;

function loadEngine(): Promise<typeof runtime.SchemaEngine> {
  engineClass ??= (async () => {
    // The package entry imports the .wasm as an ES module, which Node 20
    // cannot; compile the bytes and hand them to the glue ourselves.
    const glue = createRequire(import.meta.url).resolve(
      "@prisma/schema-engine-wasm/schema_engine_bg",
    );
    const bytes = await readFile(glue.replace(/\.js$/, ".wasm"));
    const imports: WebAssembly.ModuleImports = {
      ...(runtime as unknown as WebAssembly.ModuleImports),
    };
    // The engine arms a 10 s timer for each advisory-lock wait and never clears
    // it, keeping short-lived processes alive. Unref its timers: while it works,
    // its open connection pool keeps the process alive anyway.
    for (const name of Object.keys(imports).filter((key) => key.startsWith("__wbg_setTimeout_"))) {
      imports[name] = (handler: () => void, ms: number) => setTimeout(handler, ms >>> 0).unref();
    }
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
      "./schema_engine_bg.js": imports,
    });
    runtime.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return runtime.SchemaEngine;
  })();
  return engineClass;
}

/** Engine log lines are JSON; pass on the human part, never the SQL. */
function engineLogger(log: Log | undefined): (line: string) => void {
  return (line) => {
    if (!log) return;
    try {
      const parsed = JSON.parse(line) as { level?: unknown; fields?: { message?: unknown } };
      const { level, fields } = parsed;
      const message = fields?.message;
      if (typeof message !== "string" || level === "DEBUG" || level === "TRACE") return;
      if (/^(Starting schema-engine|Analysis run)/.test(message)) return;
      log(message);
    } catch {
      log(line);
    }
  };
}

/**
 * A readable error. Adapter failures reach us as "External error id#N" with
 * the original (say, a refused connection) in the registry; engine failures
 * carry a span trace, which names the failing migration but is noise otherwise.
 */
function engineError(action: string, error: unknown, lookup: (id: number) => unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const migration = /migration_name="([^"]+)"/.exec(message)?.[1];
  const where = migration ? ` (migration ${migration})` : "";
  const id = /External error id#(\d+)/.exec(message)?.[1];
  const original = id === undefined ? undefined : lookup(Number(id));
  if (original !== undefined) {
    const detail = original instanceof Error ? original.message : String(original);
    return new Error(`${action} failed${where}: ${detail}`, { cause: original });
  }
  const summary = (message.split(/\n\s*0: /)[0] ?? message)
    .replace(/^external connector error\n/, "")
    .trim();
  return new Error(`${action} failed${where}: ${summary}`, { cause: error });
}

/** Runs `task` with an engine connected through `factory`, then frees it. */
export async function withEngine<T>(
  factory: SqlMigrationAwareDriverAdapterFactory,
  log: Log | undefined,
  action: string,
  task: (engine: Engine) => Promise<T>,
): Promise<T> {
  const SchemaEngine = await loadEngine();
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  const lookup = (id: number) => bound.errorRegistry.consumeError(id)?.error;
  let engine: Engine;
  try {
    engine = await SchemaEngine.new({ datamodels: undefined }, engineLogger(log), bound);
  } catch (error) {
    throw engineError(action, error, lookup);
  }
  try {
    return await task(engine);
  } catch (error) {
    throw engineError(action, error, lookup);
  } finally {
    engine.free();
  }
}

/**
 * adapter-pg 7.10 as the engine needs it, with three fixes:
 * - idle connections are never evicted: the engine's advisory lock lives on one;
 * - columns of PostgreSQL's internal "char" type (pg_constraint.contype...)
 *   are reported as text: the adapter cannot map that type, which fails every
 *   catalog query of the engine's schema describer (all diffs);
 * - a script goes to the server whole, as the native engine sends it. The
 *   adapter splits it on ";" (breaking $$ bodies and literals) and runs the
 *   pieces on whichever pooled connection is free; PostgreSQL runs a
 *   multi-statement query as one transaction, so a failed migration leaves
 *   nothing behind.
 * Pools are added to `pools` for the caller to end.
 */
export function pgFactory(
  connectionString: string,
  pools: pg.Pool[],
  connectToShadowDb: () => Promise<SqlDriverAdapter> = () =>
    Promise.reject(new Error("no shadow database here")),
): SqlMigrationAwareDriverAdapterFactory {
  const pool = new pg.Pool({ connectionString, idleTimeoutMillis: 0 });
  pools.push(pool);
  pool.on("error", () => undefined); // a dropped idle connection surfaces on the next query
  const query = pool.query.bind(pool) as (
    config: pg.QueryConfig | string,
  ) => Promise<pg.QueryResult>;
  pool.query = (async (config: pg.QueryConfig | string) => {
    const result = await query(config);
    for (const field of result.fields ?? []) {
      if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
    }
    return result;
  }) as typeof pool.query;
  const base = new PrismaPg(pool);
  return {
    provider: base.provider,
    adapterName: base.adapterName,
    async connect() {
      const adapter = await base.connect();
      adapter.executeScript = async (script) => {
        await query(script).catch((error: unknown) => {
          // The shape adapter-pg gives database errors, so the engine reports (and logs) the real cause.
          if (!(error instanceof pg.DatabaseError)) throw error;
          const { code = "N/A", severity = "N/A", message, detail, column, hint } = error;
          throw new DriverAdapterError({
            kind: "postgres",
            code,
            severity,
            message,
            detail,
            column,
            hint,
          });
        });
      };
      return adapter;
    },
    connectToShadowDb,
  };
}
