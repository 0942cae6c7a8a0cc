import { EMPTY_SQL, isOneOf, query, queryOne, sql, SqlFragment, statement } from "../db/sql";
import type { Statement } from "../db/sql";

/**
 * The API keys' hand-written statements (docs/database.md#hand-written-statements).
 * The key check runs on every data request, alone or carried by the read
 * (a hot request path: one round trip, one plan per connection). The
 * last-use stamp is a bulk write: every key used in an interval, in one
 * statement with one array parameter, whatever the number of keys.
 */

/** What a read of the key's data needs of the key. */
export interface KeyCheck {
  apiKeyId: string;
  tenantId: string;
  /** The key's client belongs to a suspended partner (docs/partner-suspension.md). */
  partnerSuspended: boolean;
}

/** The active key's principal, as the check reads it. */
export interface ActiveKeyRow extends KeyCheck {
  subject: string;
  clientId: string;
  partnerId: string | null;
  scope: string;
  expiresAt: Date;
  email: string;
}

const EXAMPLE_HASHES = ["hash-current"];
const EXAMPLE_ROTATING_HASHES = ["hash-current", "hash-previous"];
const EXAMPLE_NOW = new Date("2026-01-01T00:00:00Z");

/**
 * The active key's row for its hash candidates (both secrets' while
 * SECRET_KEY rotates): its id, tenant and whether its client's partner is
 * suspended, then `columns` (each after a comma) of `k` (the key), `c` (its
 * client) and the tables `joins` adds; no row when unknown, revoked or expired.
 */
function activeKeyLookup(
  hashes: readonly string[],
  now: Date,
  columns = EMPTY_SQL,
  joins = EMPTY_SQL,
): SqlFragment {
  return sql`SELECT k."id" AS "apiKeyId", k."tenantId",
               COALESCE(p."status" = 'suspended', false) AS "partnerSuspended"${columns}
          FROM "ApiKey" k${joins}
          JOIN "Client" c ON c."id" = k."clientId"
          LEFT JOIN "Partner" p ON p."id" = c."partnerId"
         WHERE ${isOneOf(sql`k."keyHash"`, hashes)}
           AND k."revokedAt" IS NULL
           AND k."expiresAt" > ${now}`;
}

/** The key joined to its tenant, user, client and the client's partner: one statement. */
const activeByHash = statement(
  "keys.activeByHash",
  (hashes: readonly string[], now: Date) =>
    activeKeyLookup(
      hashes,
      now,
      sql`, t."subject", k."clientId", c."partnerId", k."scope", k."expiresAt", u."email"`,
      sql`
          JOIN "Tenant" t ON t."id" = k."tenantId"
          JOIN "User" u ON u."id" = t."userId"`,
    ),
  [
    [EXAMPLE_HASHES, EXAMPLE_NOW],
    [EXAMPLE_ROTATING_HASHES, EXAMPLE_NOW],
  ],
);

/** The active key's principal, or null when unknown, revoked or expired. */
export function findActiveKey(hashes: readonly string[], now: Date): Promise<ActiveKeyRow | null> {
  return queryOne<ActiveKeyRow>(activeByHash(hashes, now));
}

/**
 * The key check's columns in a keyed read's rows, named apart from the
 * read's own (`key.tenantId`, …), so no column of the read can shadow one.
 */
const KEY_CHECK_COLUMNS = [
  "apiKeyId",
  "tenantId",
  "partnerSuspended",
] as const satisfies readonly (keyof KeyCheck)[];
const KEY_CHECK_SELECT = new SqlFragment(
  [KEY_CHECK_COLUMNS.map((column) => `"key"."${column}" AS "key.${column}"`).join(", ")],
  [],
);
export type KeyCheckColumns = { [K in keyof KeyCheck as `key.${K}`]: KeyCheck[K] };

/**
 * The key check and a read of the key's tenant in one statement, for a
 * query module to declare its keyed reads with. `read` is given the
 * tenant's id as an SQL expression and must order its own rows (it runs as a
 * lateral subquery of the key's one row, which keeps that order). Only what
 * the read needs of the key is looked up: the client's partner, for its
 * suspension, and not the tenant's subject or the user's address. A
 * suspended partner's key gets its row and none of the read's.
 */
export function withKeyCheck(
  hashes: readonly string[],
  now: Date,
  read: (tenantId: SqlFragment) => SqlFragment,
): SqlFragment {
  return sql`
    WITH "key" AS MATERIALIZED (${activeKeyLookup(hashes, now)})
    SELECT ${KEY_CHECK_SELECT}, "read".* FROM "key"
      LEFT JOIN LATERAL (${read(sql`"key"."tenantId"`)}) "read" ON NOT "key"."partnerSuspended"`;
}

/** Runs a keyed read declared with withKeyCheck: no row when the key is not active. */
export function runKeyedRead<Row extends object>(
  read: Statement,
): Promise<(Row & KeyCheckColumns)[]> {
  return query<Row & KeyCheckColumns>(read);
}

/** Stamps the keys' last use, never moving a later stamp back. */
const stampLastUse = statement(
  "keys.stampLastUse",
  (ids: readonly string[], now: Date) =>
    sql`UPDATE "ApiKey" SET "lastUsedAt" = ${now}
         WHERE "id" = ANY(${ids}::uuid[])
           AND ("lastUsedAt" IS NULL OR "lastUsedAt" < ${now})`,
  [[["00000000-0000-0000-0000-000000000000"], EXAMPLE_NOW]],
);

export async function stampKeysUsed(ids: readonly string[], now: Date): Promise<void> {
  await query(stampLastUse(ids, now));
}
