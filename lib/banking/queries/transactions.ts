import { v7 as uuidV7 } from "uuid";
import { syncDb } from "../../db/client";
import { queryIn, sql, statement } from "../../db/sql";
import type { TransactionRow } from "../sealing";
import type { RunStatement } from "./write-transaction";

/**
 * The stored transactions of an account, written by a sync or a first
 * history (lib/banking/write.ts, lib/banking/pending.ts). Hand-written as bulk
 * writes (docs/database.md, rule 3): a chunk of hundreds of sealed rows is
 * one statement, which through the ORM's JSON round trip would cost more CPU
 * than the statement does. `banking.oldestPendingDay` is hand-written for an
 * expression the query API cannot say (the minimum of a COALESCE).
 */

const EXAMPLE_ACCOUNT = "00000000-0000-0000-0000-000000000000";

/**
 * The rows travel as one JSON parameter, an array of rows, however many a
 * chunk holds (one statement text for every size): PostgreSQL reads one JSON
 * text with less work than ten array parameters, and the driver sends one
 * string instead of escaping 5 000 array elements.
 *
 * A booked transaction already stored is left as it is (its row, id and
 * envelope never change); a pending one already stored takes what the bank
 * says now. The new rows come back.
 */
const insert = statement(
  "banking.insertTransactions",
  (accountId: string, rows: string) => sql`
WITH written AS (
INSERT INTO "Transaction" ("id", "accountId", "currency", "creditDebitIndicator", "status",
  "bookingDate", "valueDate", "transactionDate", "bankTransactionCode", "enc", "dedupeHash",
  "matchHash", "amountHash")
SELECT rows.d::uuid, ${accountId}::uuid, rows.c, rows.i, rows.s, rows.b, rows.v, rows.t, rows.k,
  rows.e, rows.h, rows.m, rows.a
FROM json_to_recordset(${rows}::json) AS rows(d text, c text, i text, s text, b text, v text, t text,
  k text, e text, h text, m text, a text)
ON CONFLICT ("accountId", "dedupeHash") DO UPDATE SET "currency" = EXCLUDED."currency",
  "creditDebitIndicator" = EXCLUDED."creditDebitIndicator", "status" = EXCLUDED."status",
  "bookingDate" = EXCLUDED."bookingDate", "valueDate" = EXCLUDED."valueDate",
  "transactionDate" = EXCLUDED."transactionDate",
  "bankTransactionCode" = EXCLUDED."bankTransactionCode", "enc" = EXCLUDED."enc",
  "matchHash" = EXCLUDED."matchHash", "amountHash" = EXCLUDED."amountHash"
  WHERE "Transaction"."status" = 'PDNG'
RETURNING "id", "dedupeHash", xmax = 0 AS "inserted"
)
SELECT "id", "dedupeHash" FROM written WHERE "inserted"`,
  [[EXAMPLE_ACCOUNT, "[]"]],
);

/**
 * A row stored under one of a transaction's previous keys gets its current
 * key (unless a row holds that one already). One stored row per key.
 */
const rehash = statement(
  "banking.rehashTransactions",
  (accountId: string, dedupeHashes: readonly string[], previousHashes: readonly string[]) => sql`
UPDATE "Transaction" AS stored SET "dedupeHash" = found."dedupeHash"
FROM (
  SELECT DISTINCT ON (rows."dedupeHash") rows."dedupeHash", earlier."id"
  FROM unnest(${dedupeHashes}::text[], ${previousHashes}::text[]) AS rows("dedupeHash", "previousHash")
  JOIN "Transaction" AS earlier
    ON earlier."accountId" = ${accountId}::uuid AND earlier."dedupeHash" = rows."previousHash"
  WHERE NOT EXISTS (SELECT 1 FROM "Transaction" AS current
    WHERE current."accountId" = ${accountId}::uuid AND current."dedupeHash" = rows."dedupeHash")
  ORDER BY rows."dedupeHash"
) AS found
WHERE stored."id" = found."id"`,
  [[EXAMPLE_ACCOUNT, ["current"], ["previous"]]],
);

/** The account's pending rows whose identities are not among `seen`, oldest first. */
const vanishedPending = statement(
  "banking.vanishedPending",
  (accountId: string, seen: readonly string[]) => sql`
SELECT "id", "matchHash", "amountHash",
  COALESCE("bookingDate", "transactionDate", "valueDate", to_char("createdAt", 'YYYY-MM-DD')) AS "day"
FROM "Transaction"
WHERE "accountId" = ${accountId}::uuid AND "status" = 'PDNG' AND NOT ("dedupeHash" = ANY(${seen}::text[]))
ORDER BY "day", "id"`,
  [[EXAMPLE_ACCOUNT, ["seen"]]],
);

/** A new row takes the id of the pending row it replaces. */
const takeIds = statement(
  "banking.takePendingIds",
  (accountId: string, pendingIds: readonly string[], newIds: readonly string[]) => sql`
UPDATE "Transaction" AS replacing SET "id" = pairs."pendingId"
FROM unnest(${pendingIds}::uuid[], ${newIds}::uuid[]) AS pairs("pendingId", "newId")
WHERE replacing."accountId" = ${accountId}::uuid AND replacing."id" = pairs."newId"`,
  [[EXAMPLE_ACCOUNT, [EXAMPLE_ACCOUNT], [EXAMPLE_ACCOUNT]]],
);

const remove = statement(
  "banking.removeTransactions",
  (accountId: string, ids: readonly string[]) =>
    sql`DELETE FROM "Transaction" WHERE "accountId" = ${accountId}::uuid AND "id" = ANY(${ids}::uuid[])`,
  [[EXAMPLE_ACCOUNT, [EXAMPLE_ACCOUNT]]],
);

/** The day of the account's oldest pending entry. */
const oldestPending = statement(
  "banking.oldestPendingDay",
  (accountId: string) => sql`SELECT min(COALESCE("bookingDate", "transactionDate", "valueDate",
       to_char("createdAt", 'YYYY-MM-DD'))) AS "day"
     FROM "Transaction" WHERE "accountId" = ${accountId}::uuid AND "status" = 'PDNG'`,
  [[EXAMPLE_ACCOUNT]],
);

/**
 * Writes up to a chunk of sealed transactions, `envelopes[i]` being row i's,
 * and returns the ones that were new (a row already stored is skipped, or
 * updated while pending).
 *
 * Each new row's id is a UUIDv7 (RFC 9562): time-ordered, so new rows land at
 * the right edge of the primary key's index. Random ids touched a different
 * leaf page of that index for nearly every row, and after each checkpoint
 * PostgreSQL logs a whole copy of every page it touches first: half of a
 * history's write-ahead log (docs/ingest.md).
 */
export function insertTransactionRows(
  run: RunStatement,
  accountId: string,
  rows: readonly TransactionRow["columns"][],
  envelopes: readonly string[],
): Promise<{ id: string; dedupeHash: string }[]> {
  const json = JSON.stringify(
    rows.map((row, index) => ({
      d: uuidV7(),
      c: row.currency,
      i: row.creditDebitIndicator,
      s: row.status,
      b: row.bookingDate,
      v: row.valueDate,
      t: row.transactionDate,
      k: row.bankTransactionCode,
      e: envelopes[index],
      h: row.dedupeHash,
      m: row.matchHash,
      a: row.amountHash,
    })),
  );
  return run.rows(insert(accountId, json));
}

/** Rewrites the keys of rows stored under a previous key: `[current, previous]` pairs. */
export async function rehashTransactions(
  run: RunStatement,
  accountId: string,
  pairs: readonly (readonly [current: string, previous: string])[],
): Promise<void> {
  await run(
    rehash(
      accountId,
      pairs.map(([current]) => current),
      pairs.map(([, previous]) => previous),
    ),
  );
}

/** A stored pending row, with its day (booking, transaction, value or stored). */
export interface StoredPending {
  id: string;
  matchHash: string | null;
  amountHash: string | null;
  day: string | null;
}

/** The account's pending rows a read did not report (`seen`: the identities it did), oldest first. */
export function pendingNotSeen(
  run: RunStatement,
  accountId: string,
  seen: readonly string[],
): Promise<StoredPending[]> {
  return run.rows(vanishedPending(accountId, seen));
}

/** Removes the account's rows of these ids. */
export async function removeTransactions(
  run: RunStatement,
  accountId: string,
  ids: readonly string[],
): Promise<void> {
  await run(remove(accountId, ids));
}

/** Each new row takes the id of the pending row it replaces: `[pendingId, newId]` pairs. */
export async function takePendingIds(
  run: RunStatement,
  accountId: string,
  pairs: readonly (readonly [pendingId: string, newId: string])[],
): Promise<void> {
  await run(
    takeIds(
      accountId,
      pairs.map(([pendingId]) => pendingId),
      pairs.map(([, newId]) => newId),
    ),
  );
}

/** The day of the account's oldest pending entry, if it holds any (on the sync pool). */
export async function oldestPendingDay(accountId: string): Promise<string | null> {
  const [row] = await queryIn<{ day: string | null }>(syncDb(), oldestPending(accountId));
  return row?.day ?? null;
}
