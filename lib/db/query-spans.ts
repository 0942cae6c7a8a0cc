import type pg from "pg";
import { startSpan, tracingActive } from "../tracing";

/**
 * A span per database statement when tracing is on (docs/observability.md):
 * named by the statement's verb, with the pool's name, never the SQL text or
 * its values. Two ways in are covered: `pool.query` (Prisma outside a
 * transaction, lib/db/sql.ts) and the connection a caller checks out with
 * `pool.connect()` (Prisma's transactions). The pool's own checkouts for
 * `pool.query` are not counted twice.
 */

const VERBS = new Set([
  "SELECT",
  "INSERT",
  "UPDATE",
  "DELETE",
  "WITH",
  "BEGIN",
  "COMMIT",
  "ROLLBACK",
  "SAVEPOINT",
  "RELEASE",
  "SET",
  "DEALLOCATE",
]);

function verbOf(statement: unknown): string {
  const text =
    typeof statement === "string"
      ? statement
      : typeof statement === "object" && statement !== null && "text" in statement
        ? String((statement as { text: unknown }).text)
        : "";
  const verb = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? "";
  return VERBS.has(verb) ? verb : "OTHER";
}

type Query = (...args: unknown[]) => unknown;

function traced(query: Query, poolName: string): Query {
  return (...args: unknown[]) => {
    if (!tracingActive()) return query(...args);
    const verb = verbOf(args[0]);
    const end = startSpan(`db ${verb}`, {
      "db.system.name": "postgresql",
      "db.operation.name": verb,
      "bank_connect.db.pool": poolName,
    });
    const last = args.at(-1);
    if (typeof last === "function") {
      const callback = last as (error: unknown, result: unknown) => void;
      return query(...args.slice(0, -1), (error: unknown, result: unknown) => {
        end(error);
        callback(error, result);
      });
    }
    const result = query(...args);
    if (result instanceof Promise) result.then(() => end(), end);
    else end();
    return result;
  };
}

export function traceQueries(pool: pg.Pool, poolName: string): void {
  const poolQuery = pool.query.bind(pool) as Query;
  (pool as unknown as { query: Query }).query = traced(poolQuery, poolName);

  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { connect: (...args: unknown[]) => unknown }).connect = (
    ...args: unknown[]
  ) => {
    // The callback form is what pool.query uses inside; its statement already has a span.
    if (args.length > 0 || !tracingActive()) return connect(...args);
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      const query = client.query as unknown as Query;
      const release = client.release;
      const checkedOut = client as unknown as { query: Query; release: typeof release };
      checkedOut.query = traced(query.bind(client), poolName);
      checkedOut.release = (...rest: Parameters<typeof release>) => {
        checkedOut.query = query;
        checkedOut.release = release;
        return release.apply(client, rest);
      };
      return client;
    });
  };
}
