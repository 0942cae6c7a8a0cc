import pg from "pg";
import { encodeTransactionCursor } from "../../lib/api/paging";

/**
 * The paging rows' account: 1 000 000 transactions, written by PostgreSQL
 * itself with generate_series in one statement (about 1 400 a day over two
 * years; every row carries the same valid envelope, taken from a real
 * synced transaction of the tenant), then vacuumed so that its pages are
 * marked all-visible, as autovacuum would leave a table that size.
 */

export const BIG_ACCOUNT_ROWS = 1_000_000;

export interface BigAccount {
  accountId: string;
  /** The `cursor` that continues after row `depth` of the statement. */
  cursorAt(depth: number): Promise<string>;
}

export async function seedBigAccount(
  databaseUrl: string,
  tenantId: string,
  log: (line: string) => void,
  rowCount = BIG_ACCOUNT_ROWS,
): Promise<BigAccount> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let accountId: string;
  try {
    const started = Date.now();
    const {
      rows: [account],
    } = await client.query<{ id: string; enc: string }>(
      `INSERT INTO "Account" ("id", "connectionId", "tenantId", "currency", "uidHash", "updatedAt")
       SELECT gen_random_uuid(), a."connectionId", a."tenantId", 'DKK', 'bench-' || gen_random_uuid(), now()
         FROM "Account" a WHERE a."tenantId" = $1 LIMIT 1
       RETURNING "id", (SELECT t."enc" FROM "Transaction" t JOIN "Account" o ON o."id" = t."accountId"
                         WHERE o."tenantId" = $1 LIMIT 1) AS "enc"`,
      [tenantId],
    );
    if (!account?.enc) throw new Error("the tenant has no synced transaction to copy");
    accountId = account.id;
    await client.query(
      `INSERT INTO "Transaction" ("id", "accountId", "currency", "creditDebitIndicator", "status",
                                  "bookingDate", "valueDate", "transactionDate", "enc", "dedupeHash")
       SELECT gen_random_uuid(), $1, 'DKK', CASE WHEN i % 3 = 0 THEN 'CRDT' ELSE 'DBIT' END, 'BOOK',
              day, day, day, $2, md5(i::text)
         FROM generate_series(1, $3::int) i,
              LATERAL (SELECT to_char(DATE '2026-11-20' - (i / 1370), 'YYYY-MM-DD') AS day) d`,
      [account.id, account.enc, rowCount],
    );
    await client.query(`VACUUM ANALYZE "Transaction"`);
    await client.query(`VACUUM ANALYZE "Account"`);
    log(`seeded ${rowCount} transactions in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await client.end();
  }
  return {
    accountId,
    async cursorAt(depth: number) {
      const reader = new pg.Client({ connectionString: databaseUrl });
      await reader.connect();
      try {
        const { rows } = await reader.query<{
          bookingDate: string | null;
          transactionDate: string | null;
          id: string;
        }>(
          `SELECT "bookingDate", "transactionDate", "id" FROM "Transaction" WHERE "accountId" = $1
            ORDER BY "bookingDate" DESC NULLS FIRST, "transactionDate" DESC NULLS FIRST, "id"
            OFFSET $2 LIMIT 1`,
          [accountId, depth - 1],
        );
        const [row] = rows;
        if (!row) throw new Error(`the account has no row ${depth}`);
        return encodeTransactionCursor({ ...row, total: rowCount, from: null, to: null });
      } finally {
        await reader.end();
      }
    },
  };
}
