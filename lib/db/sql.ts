import { createHash } from "node:crypto";
import pg from "pg";
import { requestPool } from "./client";

/**
 * Hand-written statements (docs/database.md#hand-written-statements): the
 * one way to write SQL in the product. A statement is written with the `sql`
 * tag in its aggregate's query module (a `queries.ts`, or a file in a
 * `queries/` folder) and declared with `statement`, which names it and gives
 * example arguments; the catalogue test prepares every example against the
 * migrated schema, so a renamed or misspelled column fails a test by the
 * statement's name. Only a declared statement can run. Values are always
 * bound parameters, never spliced into the text:
 *
 *   export const clientName = statement(
 *     "clients.name",
 *     (id: string) => sql`SELECT "name" FROM "Client" WHERE "id" = ${id}`,
 *     [["cli_example"]],
 *   );
 *   const row = await queryOne<{ name: string }>(clientName(id));
 *
 * A fragment made with `sql` may be a value of another (an optional filter);
 * its parameters are renumbered. `query` runs a statement on the request
 * pool, the same connections Prisma uses, so a busy pool or a database
 * outage fails it exactly as it fails Prisma's (lib/db/faults.ts); each
 * distinct text is a named prepared statement, which PostgreSQL parses and
 * plans once per connection. `queryIn` and `executeIn` run one inside a
 * Prisma transaction; `inTransaction` runs a bulk write's statements in a
 * transaction of their own on one connection of a pool.
 */

export class SqlFragment {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): SqlFragment {
  return new SqlFragment(strings, values);
}

/** An empty fragment (an absent optional condition). */
export const EMPTY_SQL = new SqlFragment([""], []);

/**
 * `column = $1`, or `column IN ($1, $2)` for several values: a list whose
 * length is part of the statement, unlike `column = ANY($1)`. For an array
 * parameter, a generic plan cannot know the length and assumes ten
 * elements; on a large table that plan looks costlier than the ones made
 * for the actual values, so PostgreSQL would plan the statement again on
 * every run instead of keeping one plan per connection.
 */
export function isOneOf(column: SqlFragment, values: readonly unknown[]): SqlFragment {
  if (values.length === 0) return sql`FALSE`;
  if (values.length === 1) return new SqlFragment(["", " = ", ""], [column, values[0]]);
  const separators = values.slice(1).map(() => ", ");
  return new SqlFragment(["", " IN (", ...separators, ")"], [column, ...values]);
}

/**
 * The columns are `timestamp(3)` without a time zone holding UTC, as Prisma
 * writes them: a Date goes in as its UTC wall time (PostgreSQL drops the
 * `Z` when it casts to `timestamp`), and comes out read as UTC, never as the
 * server's local time.
 */
function toParameter(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}

export interface CompiledSql {
  text: string;
  values: unknown[];
}

export function compile(fragment: SqlFragment): CompiledSql {
  const values: unknown[] = [];
  const append = (part: SqlFragment): string => {
    let text = part.strings[0] ?? "";
    part.values.forEach((value, index) => {
      if (value instanceof SqlFragment) text += append(value);
      else {
        values.push(toParameter(value));
        text += `$${values.length}`;
      }
      text += part.strings[index + 1] ?? "";
    });
    return text;
  };
  return { text: append(fragment), values };
}

const TIMESTAMP_OID = 1114;
const INT8_OID = 20;

/** `timestamp` as UTC (see toParameter); `bigint` (counts) as a number. */
const TYPES = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === TIMESTAMP_OID) return (text: string) => new Date(`${text.replace(" ", "T")}Z`);
    if (oid === INT8_OID) return (text: string) => Number(text);
    return pg.types.getTypeParser(oid, format ?? "text");
  },
} as pg.CustomTypesConfig;

const statementNames = new Map<string, string>();

/** A stable name per text: PostgreSQL keeps one prepared statement per name and connection. */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `bc_${createHash("sha256").update(text).digest("base64url").slice(0, 22)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** A declared statement with its arguments bound: the only thing the runners below accept. */
export class Statement {
  constructor(
    readonly name: string,
    readonly fragment: SqlFragment,
  ) {}
}

/** A declared statement: its name, how it is built, and arguments that show each of its forms. */
export interface CatalogueEntry {
  name: string;
  build: (...args: never[]) => SqlFragment;
  examples: readonly (readonly unknown[])[];
}

const catalogue = new Map<string, CatalogueEntry>();

/**
 * Declares a hand-written statement. `examples` are arguments for every form
 * the text can take (each optional part present and absent, one and several
 * values of a list); the catalogue test prepares each against the schema.
 */
export function statement<Args extends unknown[]>(
  name: string,
  build: (...args: Args) => SqlFragment,
  examples: readonly [Args, ...Args[]],
): (...args: Args) => Statement {
  catalogue.set(name, { name, build: build as unknown as CatalogueEntry["build"], examples });
  return (...args: Args) => new Statement(name, build(...args));
}

/** Every statement declared by the query modules loaded so far. */
export function declaredStatements(): CatalogueEntry[] {
  return [...catalogue.values()];
}

/** Runs one statement on the request pool and returns its rows. */
export async function query<Row extends object>(statement: Statement): Promise<Row[]> {
  const { text, values } = compile(statement.fragment);
  const result = await requestPool().query<Row & pg.QueryResultRow>({
    name: statementName(text),
    text,
    values,
    types: TYPES,
  });
  return result.rows;
}

/** The first row of a statement's result, or null. */
export async function queryOne<Row extends object>(statement: Statement): Promise<Row | null> {
  return (await query<Row>(statement))[0] ?? null;
}

/** What runs a statement inside a Prisma transaction (or on the Prisma client itself). */
export interface RawRunner {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/**
 * Runs a statement through Prisma (inside its transaction) and returns its
 * rows. Prisma reads `bigint` as BigInt and `timestamp` as a Date.
 */
export function queryIn<Row extends object>(
  runner: RawRunner,
  statement: Statement,
): Promise<Row[]> {
  const { text, values } = compile(statement.fragment);
  return runner.$queryRawUnsafe<Row[]>(text, ...values);
}

/** Runs a statement through Prisma (inside its transaction) and returns how many rows it changed. */
export function executeIn(runner: RawRunner, statement: Statement): Promise<number> {
  const { text, values } = compile(statement.fragment);
  return runner.$executeRawUnsafe(text, ...values);
}

/** Runs the statements of one transaction: `run(s)` answers how many rows s changed, `run.rows(s)` its rows. */
export interface TransactionStatements {
  (statement: Statement): Promise<number>;
  rows<Row extends object>(statement: Statement): Promise<Row[]>;
}

/** The statements of a Prisma transaction (`executeIn`, `queryIn`) as one runner. */
export function statementsIn(runner: RawRunner): TransactionStatements {
  return Object.assign((statement: Statement) => executeIn(runner, statement), {
    rows: <Row extends object>(statement: Statement) => queryIn<Row>(runner, statement),
  });
}

/**
 * A transaction of declared statements on one connection of `pool`, for a
 * bulk write (docs/database.md, rule 3): Prisma passes a raw statement's
 * values through JSON on their way to the driver, which for a chunk of 500
 * sealed rows costs more CPU than the statement does. Before each
 * statement, the one `bound()` gives runs first (a statement timeout of the
 * time left); `bound` may throw to end the transaction. Commits once `work`
 * resolves, rolls back when anything fails, and rethrows what failed. Each
 * statement is sent unnamed (bulk texts are not worth a prepared statement
 * per connection); `timestamp` reads as UTC, `bigint` as a number.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  bound: () => Statement,
  work: (run: TransactionStatements) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // A connection that was cut, or whose rollback failed, is closed rather than handed out again.
  let broken: Error | boolean = false;
  // A cut while checked out is reported to the statement under way and as an
  // event, which must not be thrown out of the process.
  const lost = (error: Error) => (broken = error);
  client.on("error", lost);
  const execute = async <Row extends object>(statement: Statement) => {
    const limit = compile(bound().fragment);
    await client.query(limit.text, limit.values);
    const { text, values } = compile(statement.fragment);
    return client.query<Row & pg.QueryResultRow>({ text, values, types: TYPES });
  };
  const run: TransactionStatements = Object.assign(
    async (statement: Statement) => (await execute(statement)).rowCount ?? 0,
    {
      rows: async <Row extends object>(statement: Statement) =>
        (await execute<Row>(statement)).rows,
    },
  );
  try {
    await client.query("BEGIN");
    const result = await work(run);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch((cause: unknown) => {
      broken = cause instanceof Error ? cause : true;
    });
    throw error;
  } finally {
    client.off("error", lost);
    client.release(broken);
  }
}
