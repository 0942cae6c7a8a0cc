import type { z } from "zod";
import { sql, EMPTY_SQL, type SqlFragment } from "../db/sql";
import { isUuid } from "../db/uuid";
import { getEnv } from "../env";
import { apiJson, accountNotFound, historyPending, invalidRequest } from "./data";
import {
  encodeTransactionCursor,
  parseTransactionQuery,
  type TransactionCursor,
  type TransactionQuery,
} from "./paging";
import type { TenantRead } from "./route";
import type { TransactionPage } from "./schemas";
import { toTransactionWire, type TransactionRow } from "./wire";

/**
 * GET /api/accounts/{id}/transactions (/docs/data; docs/paging.md): after
 * the API-key check (lib/api/route.ts, checkedRead), one statement checks
 * that the account is the key's tenant's, counts, and reads
 * the page along the index on (accountId, bookingDate DESC, transactionDate
 * DESC, id), the statement's order: pending entries (no booking date yet)
 * first, then newest first, ties broken by id.
 */

/** Offsets from here on skip rows in the index alone before reading the page's rows. */
const DEFERRED_JOIN_FROM_OFFSET = 1_000;

const COLUMNS = sql`tr."id", tr."currency", tr."creditDebitIndicator", tr."status", tr."bookingDate",
  tr."valueDate", tr."transactionDate", tr."bankTransactionCode", tr."enc"`;
const ORDER = sql`tr."bookingDate" DESC NULLS FIRST, tr."transactionDate" DESC NULLS FIRST, tr."id"`;

function dateFilter({ from, to }: TransactionQuery): SqlFragment {
  if (from && to) return sql` AND tr."bookingDate" >= ${from} AND tr."bookingDate" <= ${to}`;
  if (from) return sql` AND tr."bookingDate" >= ${from}`;
  if (to) return sql` AND tr."bookingDate" <= ${to}`;
  return EMPTY_SQL;
}

/** `column = value`, or `column IS NULL`: the index answers both, never IS NOT DISTINCT FROM. */
const equals = (column: SqlFragment, value: string | null) =>
  value === null ? sql`${column} IS NULL` : sql`${column} = ${value}`;
/** What follows `value` in a DESC NULLS FIRST order: smaller values, or any value after a NULL. */
const after = (column: SqlFragment, value: string | null) =>
  value === null ? sql`${column} IS NOT NULL` : sql`${column} < ${value}`;

const BOOKING = sql`tr."bookingDate"`;
const TRANSACTION = sql`tr."transactionDate"`;

/**
 * The rows after a cursor, as three ranges of the index in order (the rest
 * of the cursor's day and transaction date, the rest of its day, the days
 * before it), each read no further than the page: the same few index
 * descents at any depth. One row more than the page tells whether another
 * page follows.
 */
function afterCursor(cursor: TransactionCursor, filter: SqlFragment, take: number): SqlFragment {
  const segment = (condition: SqlFragment) => sql`(
    SELECT ${COLUMNS} FROM "Transaction" tr
     WHERE tr."accountId" = account."id" AND ${condition}${filter}
     ORDER BY ${ORDER} LIMIT ${take})`;
  const sameDay = equals(BOOKING, cursor.bookingDate);
  return sql`SELECT * FROM (
      ${segment(sql`${sameDay} AND ${equals(TRANSACTION, cursor.transactionDate)} AND tr."id" > ${cursor.id}::uuid`)}
      UNION ALL ${segment(sql`${sameDay} AND ${after(TRANSACTION, cursor.transactionDate)}`)}
      UNION ALL ${segment(after(BOOKING, cursor.bookingDate))}
    ) tr ORDER BY ${ORDER} LIMIT ${take}`;
}

/**
 * The rows at an offset. Deep offsets find the page's ids in the index
 * alone (an index-only scan skips rows without reading them), then read
 * those rows: the cost of depth is an index walk, bounded by MAX_OFFSET.
 */
function atOffset(offset: number, filter: SqlFragment, take: number): SqlFragment {
  const where = sql`tr."accountId" = account."id"${filter}`;
  if (offset < DEFERRED_JOIN_FROM_OFFSET) {
    return sql`SELECT ${COLUMNS} FROM "Transaction" tr WHERE ${where}
      ORDER BY ${ORDER} LIMIT ${take} OFFSET ${offset}`;
  }
  return sql`SELECT ${COLUMNS} FROM (
      SELECT tr."id" FROM "Transaction" tr WHERE ${where}
       ORDER BY ${ORDER} LIMIT ${take} OFFSET ${offset}
    ) page JOIN "Transaction" tr ON tr."id" = page."id"
    ORDER BY ${ORDER}`;
}

/**
 * `total`: the account's kept count when nothing is filtered; a filtered
 * range counted through the index; on a cursor page, the first page's.
 */
function totalOf(page: TransactionQuery, filter: SqlFragment): SqlFragment {
  if (page.cursor) return sql`${page.cursor.total}::int`;
  if (filter === EMPTY_SQL) return sql`a."transactionCount"`;
  return sql`(SELECT count(*)::int FROM "Transaction" tr WHERE tr."accountId" = a."id"${filter})`;
}

/** One row per item, or one row of nulls for an empty page; each with the total. */
type PageRow = { total: number; historyPending: boolean } & {
  [K in keyof TransactionRow]: TransactionRow[K] | null;
};

function nextLink(accountId: string, page: TransactionQuery, next: string): string {
  const params = new URLSearchParams({ limit: String(page.limit), cursor: next });
  return `<${getEnv().issuer}/api/accounts/${accountId}/transactions?${params}>; rel="next"`;
}

/** A page of the statement, newest first, how many rows match, and where the next page starts. */
export function planTransactions(
  accountId: string,
  params: URLSearchParams,
): TenantRead<PageRow> | Response {
  const parsed = parseTransactionQuery(params);
  if (!parsed.ok) return invalidRequest(parsed.message);
  if (!isUuid(accountId)) return accountNotFound();
  const page = parsed.value;
  const filter = dateFilter(page);
  const take = page.limit + 1;
  const statement = (tenantId: SqlFragment) => sql`
    WITH account AS MATERIALIZED (
      SELECT a."id", a."historyPending", ${totalOf(page, filter)} AS "total" FROM "Account" a
       WHERE a."id" = ${accountId}::uuid AND a."tenantId" = ${tenantId}
    )
    SELECT account."total", account."historyPending", tr.* FROM account LEFT JOIN LATERAL (
      ${page.cursor ? afterCursor(page.cursor, filter, take) : atOffset(page.offset, filter, take)}
    ) tr ON true`;
  return {
    statement,
    present: "historyPending",
    answer: (rows) => answer(accountId, page, rows),
  };
}

function answer(accountId: string, page: TransactionQuery, rows: PageRow[]): Response {
  const [first] = rows;
  if (!first) return accountNotFound();
  // Never a part of the first history: until it is stored whole, the partner is asked to come back.
  if (first.historyPending) return historyPending();
  const found = rows.filter((row): row is PageRow & TransactionRow => row.id !== null);
  const items = found.slice(0, page.limit);
  const last = items.at(-1);
  const next =
    found.length > page.limit && last
      ? encodeTransactionCursor({
          bookingDate: last.bookingDate,
          transactionDate: last.transactionDate,
          id: last.id,
          total: first.total,
          from: page.from ?? null,
          to: page.to ?? null,
        })
      : null;
  return apiJson(
    {
      items: items.map(toTransactionWire),
      total: first.total,
      next,
    } satisfies z.infer<typeof TransactionPage>,
    200,
    next ? { Link: nextLink(accountId, page, next) } : {},
  );
}
