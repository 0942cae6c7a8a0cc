import { EMPTY_SQL, query, sql, statement, type SqlFragment } from "../db/sql";
import { withKeyCheck } from "../keys/queries";
import type { AccountQuery, TransactionCursor, TransactionQuery } from "./paging";
import type { AccountRow, TransactionRow } from "./wire";

/**
 * The partner's data reads (docs/database.md#hand-written-statements): a hot
 * request path, each request one statement. The accounts list carries the
 * API-key check (lib/keys/queries.ts, withKeyCheck), so it lives above both
 * the keys and the banking data, here beside the endpoints that read them.
 */

const EXAMPLE_HASHES = ["hash-current"];
const EXAMPLE_ROTATING_HASHES = ["hash-current", "hash-previous"];
const EXAMPLE_NOW = new Date("2026-01-01T00:00:00Z");
const EXAMPLE_UUID = "00000000-0000-0000-0000-000000000000";

/** An account as listed, with what its cursor needs. */
export type ListedAccountRow = AccountRow & { createdAt: Date };

/**
 * The tenant's accounts with their bank and sealed balances, in the order
 * they were connected; a page when `limit` is given (one row more than the
 * page tells whether another follows). An account whose consent was
 * withdrawn never shows `needsReconnect`, whatever an older sync stored.
 */
function accountsOf(tenantId: SqlFragment, page: AccountQuery): SqlFragment {
  const after =
    page.paged && page.after
      ? sql` AND (a."createdAt", a."id") > (${page.after.createdAt}::timestamp, ${page.after.id}::uuid)`
      : EMPTY_SQL;
  const limit = page.paged ? sql` LIMIT ${page.limit + 1}` : EMPTY_SQL;
  return sql`
    SELECT a."id", c."aspspName", c."aspspCountry", a."currency", a."accountType", a."bic",
           (a."needsReconnect" AND NOT a."consentWithdrawn") AS "needsReconnect", a."enc", a."displayNameEnc", a."uidEnc", a."createdAt",
           COALESCE((
             SELECT json_agg(json_build_object('balanceType', b."balanceType",
                      'currency', b."currency", 'referenceDate', b."referenceDate", 'enc', b."enc")
                    ORDER BY b."balanceType", b."position")
               FROM "Balance" b WHERE b."accountId" = a."id"
           ), '[]'::json) AS "balances"
      FROM "Account" a JOIN "Connection" c ON c."id" = a."connectionId"
     WHERE a."tenantId" = ${tenantId}${after}
     ORDER BY a."createdAt", a."id"${limit}`;
}

/** GET /api/accounts: the key check and the key's tenant's accounts, one statement. */
export const accountsWithKey = statement(
  "api.accountsWithKey",
  (hashes: readonly string[], now: Date, page: AccountQuery) =>
    withKeyCheck(hashes, now, (tenantId) => accountsOf(tenantId, page)),
  [
    [EXAMPLE_HASHES, EXAMPLE_NOW, { paged: false }],
    [EXAMPLE_ROTATING_HASHES, EXAMPLE_NOW, { paged: false }],
    [EXAMPLE_HASHES, EXAMPLE_NOW, { paged: true, limit: 50 }],
    [EXAMPLE_ROTATING_HASHES, EXAMPLE_NOW, { paged: true, limit: 50 }],
    [
      EXAMPLE_HASHES,
      EXAMPLE_NOW,
      { paged: true, limit: 50, after: { createdAt: EXAMPLE_NOW, id: EXAMPLE_UUID } },
    ],
    [
      EXAMPLE_ROTATING_HASHES,
      EXAMPLE_NOW,
      { paged: true, limit: 50, after: { createdAt: EXAMPLE_NOW, id: EXAMPLE_UUID } },
    ],
  ],
);

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
 * descents at any depth.
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
export type TransactionPageRow = { total: number; historyPending: boolean } & {
  [K in keyof TransactionRow]: TransactionRow[K] | null;
};

/**
 * One statement checks that the account is the tenant's, counts, and reads
 * the page along the index on (accountId, bookingDate DESC, transactionDate
 * DESC, id), the statement's order: pending entries (no booking date yet)
 * first, then newest first, ties broken by id. One row more than the page
 * tells whether another page follows. No row: not the tenant's account.
 */
const transactionPage = statement(
  "api.transactionPage",
  (tenantId: string, accountId: string, page: TransactionQuery) => {
    const filter = dateFilter(page);
    const take = page.limit + 1;
    return sql`
    WITH account AS MATERIALIZED (
      SELECT a."id", a."historyPending", ${totalOf(page, filter)} AS "total" FROM "Account" a
       WHERE a."id" = ${accountId}::uuid AND a."tenantId" = ${tenantId}::uuid
    )
    SELECT account."total", account."historyPending", tr.* FROM account LEFT JOIN LATERAL (
      ${page.cursor ? afterCursor(page.cursor, filter, take) : atOffset(page.offset, filter, take)}
    ) tr ON true`;
  },
  [
    [EXAMPLE_UUID, EXAMPLE_UUID, { limit: 100, offset: 0 }],
    [EXAMPLE_UUID, EXAMPLE_UUID, { from: "2026-01-01", limit: 100, offset: 0 }],
    [EXAMPLE_UUID, EXAMPLE_UUID, { to: "2026-01-31", limit: 100, offset: 1_000 }],
    [EXAMPLE_UUID, EXAMPLE_UUID, { from: "2026-01-01", to: "2026-01-31", limit: 10, offset: 5 }],
    [
      EXAMPLE_UUID,
      EXAMPLE_UUID,
      {
        limit: 100,
        offset: 0,
        cursor: {
          bookingDate: "2026-01-02",
          transactionDate: "2026-01-01",
          id: EXAMPLE_UUID,
          total: 300,
          from: null,
          to: null,
        },
      },
    ],
    [
      EXAMPLE_UUID,
      EXAMPLE_UUID,
      {
        from: "2026-01-01",
        to: "2026-01-31",
        limit: 100,
        offset: 0,
        cursor: {
          bookingDate: null,
          transactionDate: null,
          id: EXAMPLE_UUID,
          total: 300,
          from: "2026-01-01",
          to: "2026-01-31",
        },
      },
    ],
    [
      EXAMPLE_UUID,
      EXAMPLE_UUID,
      {
        from: "2026-01-01",
        limit: 100,
        offset: 0,
        cursor: {
          bookingDate: "2026-01-02",
          transactionDate: null,
          id: EXAMPLE_UUID,
          total: 300,
          from: "2026-01-01",
          to: null,
        },
      },
    ],
    [
      EXAMPLE_UUID,
      EXAMPLE_UUID,
      {
        to: "2026-01-31",
        limit: 100,
        offset: 0,
        cursor: {
          bookingDate: null,
          transactionDate: "2026-01-01",
          id: EXAMPLE_UUID,
          total: 300,
          from: null,
          to: "2026-01-31",
        },
      },
    ],
  ],
);

/** A page of the account's transactions, when the account is the tenant's. */
export function readTransactionPage(
  tenantId: string,
  accountId: string,
  page: TransactionQuery,
): Promise<TransactionPageRow[]> {
  return query<TransactionPageRow>(transactionPage(tenantId, accountId, page));
}
