import { createHash } from "node:crypto";
import pg from "pg";
import { requestPool } from "./client";

/**
 * Hand-written SQL for the hottest request paths (the API-key check, client
 * authentication, the code redemption, the data reads), where one statement
 * does what a chain of ORM calls does in several round trips. Values are
 * always bound parameters, never spliced into the text:
 *
 *   const rows = await query<{ id: string }>(sql`SELECT "id" FROM "Client" WHERE "id" = ${id}`);
 *
 * A fragment made with `sql` may be a value of another (an optional filter);
 * its parameters are renumbered. Statements run on the request pool, the
 * same connections Prisma uses, so a busy pool or a database outage fails
 * them exactly as it fails Prisma's (lib/db/faults.ts). Each distinct text is
 * a named prepared statement: PostgreSQL parses and plans it once per
 * connection, which matters on a machine where it shares the CPU.
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

/** Runs one statement on the request pool and returns its rows. */
export async function query<Row extends object>(fragment: SqlFragment): Promise<Row[]> {
  const { text, values } = compile(fragment);
  const result = await requestPool().query<Row & pg.QueryResultRow>({
    name: statementName(text),
    text,
    values,
    types: TYPES,
  });
  return result.rows;
}

/** The first row of a statement's result, or null. */
export async function queryOne<Row extends object>(fragment: SqlFragment): Promise<Row | null> {
  return (await query<Row>(fragment))[0] ?? null;
}
