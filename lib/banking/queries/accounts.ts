import { sql, statement } from "../../db/sql";
import type { RunStatement } from "./write-transaction";

/**
 * An account's balances and marks, and its connection's, as the write
 * transaction of a sync or of a first history stores them (lib/banking/ingest.ts,
 * lib/banking/sync.ts). Hand-written because they run among that
 * transaction's bulk writes, on its connection of the sync pool
 * (docs/database.md, rule 3), and for what the query API cannot say:
 * `banking.upsertBalance` is an `INSERT … ON CONFLICT` with expressions,
 * `banking.clearHistoryPending` a conditional `UPDATE … RETURNING`,
 * `banking.lockConnection` a row lock.
 */

const EXAMPLE_ID = "00000000-0000-0000-0000-000000000000";
const EXAMPLE_TIME = new Date("2026-01-01T00:00:00Z");

/** A balance's columns as stored: its plaintext columns and the sealed rest. */
export interface BalanceColumns {
  balanceType: string;
  currency: string;
  referenceDate: string | null;
  enc: string;
}

/**
 * A balance at its place in the bank's answer. An account may hold several
 * balances of one type (two `ITAV` of different sources or dates): the key is
 * the place, never the type, so none of them replaces another.
 */
const upsert = statement(
  "banking.upsertBalance",
  (accountId: string, position: number, columns: BalanceColumns, updatedAt: Date) => sql`
INSERT INTO "Balance" ("id", "accountId", "position", "balanceType", "currency",
  "referenceDate", "enc", "updatedAt")
VALUES (gen_random_uuid(), ${accountId}::uuid, ${position}, ${columns.balanceType},
  ${columns.currency}, ${columns.referenceDate}, ${columns.enc}, ${updatedAt}::timestamp)
ON CONFLICT ("accountId", "position") DO UPDATE SET "balanceType" = EXCLUDED."balanceType",
  "currency" = EXCLUDED."currency", "referenceDate" = EXCLUDED."referenceDate",
  "enc" = EXCLUDED."enc", "updatedAt" = EXCLUDED."updatedAt"`,
  [
    [
      EXAMPLE_ID,
      0,
      { balanceType: "ITAV", currency: "EUR", referenceDate: null, enc: "v1.example" },
      EXAMPLE_TIME,
    ],
  ],
);

/** The balances from `position` on. */
const deleteFrom = statement(
  "banking.deleteBalancesFrom",
  (accountId: string, position: number) =>
    sql`DELETE FROM "Balance" WHERE "accountId" = ${accountId}::uuid AND "position" >= ${position}`,
  [[EXAMPLE_ID, 0]],
);

const clearPending = statement(
  "banking.clearHistoryPending",
  (accountId: string, updatedAt: Date) =>
    sql`UPDATE "Account" SET "historyPending" = false, "updatedAt" = ${updatedAt}::timestamp
      WHERE "id" = ${accountId}::uuid AND "historyPending" RETURNING "connectionId"`,
  [[EXAMPLE_ID, EXAMPLE_TIME]],
);

const lockConnectionRow = statement(
  "banking.lockConnection",
  (connectionId: string) =>
    sql`SELECT "id" FROM "Connection" WHERE "id" = ${connectionId}::uuid FOR UPDATE`,
  [[EXAMPLE_ID]],
);

const historyPending = statement(
  "banking.connectionHistoryPending",
  (connectionId: string) =>
    sql`SELECT EXISTS (SELECT 1 FROM "Account" WHERE "connectionId" = ${connectionId}::uuid AND "historyPending")
       AS "exists"`,
  [[EXAMPLE_ID]],
);

const historyDays = statement(
  "banking.setHistoryDays",
  (accountId: string, days: number) =>
    sql`UPDATE "Account" SET "historyDays" = ${days} WHERE "id" = ${accountId}::uuid`,
  [[EXAMPLE_ID, 90]],
);

const accountSynced = statement(
  "banking.accountSynced",
  (accountId: string, days: number | null, identityVersion: number, updatedAt: Date) =>
    sql`UPDATE "Account" SET "historyDays" = ${days}, "identityVersion" = ${identityVersion},
             "updatedAt" = ${updatedAt}::timestamp WHERE "id" = ${accountId}::uuid`,
  [[EXAMPLE_ID, 90, 2, EXAMPLE_TIME]],
);

const connectionSynced = statement(
  "banking.connectionSynced",
  (connectionId: string, lastSyncedAt: Date, updatedAt: Date) =>
    sql`UPDATE "Connection" SET "lastSyncedAt" = ${lastSyncedAt}::timestamp, "updatedAt" = ${updatedAt}::timestamp
            WHERE "id" = ${connectionId}::uuid`,
  [[EXAMPLE_ID, EXAMPLE_TIME, EXAMPLE_TIME]],
);

/** Writes the balance at `position` of the account, in place of the one there. */
export async function upsertBalance(
  run: RunStatement,
  accountId: string,
  position: number,
  columns: BalanceColumns,
  updatedAt: Date,
): Promise<void> {
  await run(upsert(accountId, position, columns, updatedAt));
}

/** Removes the account's balances from `position` on. */
export async function deleteBalancesFrom(
  run: RunStatement,
  accountId: string,
  position: number,
): Promise<void> {
  await run(deleteFrom(accountId, position));
}

/** Clears the account's `historyPending` mark if it is set: its connection's id, or null. */
export async function clearHistoryPending(
  run: RunStatement,
  accountId: string,
  updatedAt: Date,
): Promise<string | null> {
  const [cleared] = await run.rows<{ connectionId: string }>(clearPending(accountId, updatedAt));
  return cleared?.connectionId ?? null;
}

/** Locks the connection's row until the transaction ends. */
export async function lockConnection(run: RunStatement, connectionId: string): Promise<void> {
  await run.rows(lockConnectionRow(connectionId));
}

/** Whether an account of the connection still has its first history pending. */
export async function connectionHistoryPending(
  run: RunStatement,
  connectionId: string,
): Promise<boolean> {
  const [row] = await run.rows<{ exists: boolean }>(historyPending(connectionId));
  return row?.exists ?? false;
}

/** The depth of history the account's syncs read. */
export async function setHistoryDays(
  run: RunStatement,
  accountId: string,
  days: number,
): Promise<void> {
  await run(historyDays(accountId, days));
}

/** A sync stored the account: its history depth and identity version. */
export async function markAccountSynced(
  run: RunStatement,
  accountId: string,
  days: number | null,
  identityVersion: number,
  updatedAt: Date,
): Promise<void> {
  await run(accountSynced(accountId, days, identityVersion, updatedAt));
}

/** A sync stored an account of the connection at `lastSyncedAt`. */
export async function markConnectionSynced(
  run: RunStatement,
  connectionId: string,
  lastSyncedAt: Date,
  updatedAt: Date,
): Promise<void> {
  await run(connectionSynced(connectionId, lastSyncedAt, updatedAt));
}
