import { recordKeyRevoked } from "../audit/api-keys";
import { db } from "../db/client";
import { EMPTY_SQL, isOneOf, query, queryOne, sql, SqlFragment } from "../db/sql";
import { keyedHash, keyedHashCandidates } from "../crypto/keyed-hash";
import { randomToken } from "../crypto/random";
import { ENDED_KEY_SELECT, recordAccessEnded } from "../webhooks/producers";

/**
 * API keys (docs/protocol.md#api-keys): `ebk_` + 256 random bits, stored as a keyed hash with
 * tenant, client, scope and a 365-day expiry. Only the first 12 characters
 * are ever shown again. Every request looks the key up in the database: no
 * in-process cache may make a revoked key work again (docs/security.md).
 */

export const API_KEY_PREFIX = "ebk_";
/** 31536000 seconds, 365 days (/docs/token, /docs/errors). */
export const API_KEY_LIFETIME_SECONDS = 365 * 24 * 60 * 60;
const SHOWN_PREFIX_LENGTH = 12;

export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomToken()}`;
}

export function hashApiKey(key: string): string {
  return keyedHash("api-key", key);
}

/** The hashes a key may be stored under: both secrets' while SECRET_KEY rotates. */
export const apiKeyHashCandidates = (key: string): string[] => keyedHashCandidates("api-key", key);

export function shownPrefix(key: string): string {
  return key.slice(0, SHOWN_PREFIX_LENGTH);
}

export interface ApiKeyPrincipal {
  apiKeyId: string;
  tenantId: string;
  subject: string;
  clientId: string;
  partnerId: string | null;
  scope: string;
  expiresAt: Date;
  email: string;
  /** The key's client belongs to a suspended partner (docs/partner-suspension.md). */
  partnerSuspended: boolean;
}

export type ApiKeyCredential =
  { kind: "none" } | { kind: "conflict" } | { kind: "key"; key: string };

/**
 * The key is sent as `Authorization: Bearer <key>` or `X-Api-Key: <key>`, identical in
 * effect. Two different keys in one request is a conflict, never a choice.
 */
export function readApiKeyCredential(request: Request): ApiKeyCredential {
  const authorization = request.headers.get("authorization");
  const bearer = authorization && /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
  const header = request.headers.get("x-api-key")?.trim() || null;
  if (authorization && !bearer && !/^Basic\s/i.test(authorization)) return { kind: "conflict" };
  if (bearer && header && bearer !== header) return { kind: "conflict" };
  const key = bearer || header;
  return key ? { kind: "key", key } : { kind: "none" };
}

/** What a read of the key's data needs of the key (readWithApiKey). */
export type KeyCheck = Pick<ApiKeyPrincipal, "apiKeyId" | "tenantId" | "partnerSuspended">;

const KEY_CHECK_COLUMNS = [
  "apiKeyId",
  "tenantId",
  "partnerSuspended",
] as const satisfies readonly (keyof KeyCheck)[];

/**
 * The active key's row (docs/protocol.md#api-keys) for a string: its id,
 * tenant and whether its client's partner is suspended, then `columns`
 * (each after a comma) of `k` (the key), `c` (its client) and the tables
 * `joins` adds; no row when unknown, revoked or expired. Null for a string
 * that cannot be a key.
 */
function activeKeyLookup(
  key: string,
  now: Date,
  columns = EMPTY_SQL,
  joins = EMPTY_SQL,
): SqlFragment | null {
  if (!key.startsWith(API_KEY_PREFIX) || key.length > 200) return null;
  return sql`SELECT k."id" AS "apiKeyId", k."tenantId",
               COALESCE(p."status" = 'suspended', false) AS "partnerSuspended"${columns}
          FROM "ApiKey" k${joins}
          JOIN "Client" c ON c."id" = k."clientId"
          LEFT JOIN "Partner" p ON p."id" = c."partnerId"
         WHERE ${isOneOf(sql`k."keyHash"`, apiKeyHashCandidates(key))}
           AND k."revokedAt" IS NULL
           AND k."expiresAt" > ${now}`;
}

/**
 * The active key's principal, or null when unknown, revoked or expired: one
 * statement joins the key to its tenant, user, client and the client's partner.
 */
export async function findActiveApiKey(
  key: string,
  now = new Date(),
): Promise<ApiKeyPrincipal | null> {
  const lookup = activeKeyLookup(
    key,
    now,
    sql`, t."subject", k."clientId", c."partnerId", k."scope", k."expiresAt", u."email"`,
    sql`
          JOIN "Tenant" t ON t."id" = k."tenantId"
          JOIN "User" u ON u."id" = t."userId"`,
  );
  return lookup ? queryOne<ApiKeyPrincipal>(lookup) : null;
}

/**
 * The key check's columns in a keyed read's rows, named apart from the
 * read's own (`key.tenantId`, …), so no column of the read can shadow one.
 */
const KEY_CHECK_SELECT = new SqlFragment(
  [KEY_CHECK_COLUMNS.map((column) => `"key"."${column}" AS "key.${column}"`).join(", ")],
  [],
);
type KeyCheckColumns = { [K in keyof KeyCheck as `key.${K}`]: KeyCheck[K] };

export interface KeyedRead<Row> {
  key: KeyCheck;
  /** The read's rows in its own order; none for a suspended partner's key. */
  rows: Row[];
}

/**
 * The key check and a read of the key's tenant in one statement: one round
 * trip for a data request instead of two. `read` is given the tenant's id as
 * an SQL expression and must order its own rows (it runs as a lateral
 * subquery of the key's one row, which keeps that order); `present` names a
 * column of the read that is never null, telling a row of the read from the
 * key's row alone. Null when the key is not active. The rows carry the key
 * check's columns too (`key.…`), which the read's callers ignore. Only what
 * the read needs of the key is looked up: the client's partner, for its
 * suspension, and not the tenant's subject or the user's address.
 */
export async function readWithApiKey<Row extends object>(
  key: string,
  read: (tenantId: SqlFragment) => SqlFragment,
  present: keyof Row & string,
  now = new Date(),
): Promise<KeyedRead<Row> | null> {
  const lookup = activeKeyLookup(key, now);
  if (!lookup) return null;
  const rows = await query<Row & KeyCheckColumns>(sql`
    WITH "key" AS MATERIALIZED (${lookup})
    SELECT ${KEY_CHECK_SELECT}, "read".* FROM "key"
      LEFT JOIN LATERAL (${read(sql`"key"."tenantId"`)}) "read" ON NOT "key"."partnerSuspended"`);
  const [first] = rows;
  if (!first) return null;
  const check: KeyCheck = {
    apiKeyId: first["key.apiKeyId"],
    tenantId: first["key.tenantId"],
    partnerSuspended: first["key.partnerSuspended"],
  };
  return { key: check, rows: first[present] === null ? [] : rows };
}

/**
 * RFC 7009 §2.1: only a key issued to the authenticated client is affected. The
 * revocation and its audit event commit together; then a partner's client
 * hears `access.ended` (reason `partner_revoked`, docs/events.md#types).
 */
export async function revokeClientApiKey(
  key: string,
  clientId: string,
  now = new Date(),
  clientIp: string | null = null,
): Promise<boolean> {
  const revoked = await db().$transaction(async (tx) => {
    const revoked = await tx.apiKey.updateManyAndReturn({
      where: { keyHash: { in: apiKeyHashCandidates(key) }, clientId, revokedAt: null },
      data: { revokedAt: now },
      select: {
        prefix: true,
        ...ENDED_KEY_SELECT,
        tenant: { select: { userId: true, subject: true, partnerId: true } },
      },
    });
    for (const row of revoked) {
      await recordKeyRevoked(tx, {
        clientId,
        partnerId: row.client.partnerId,
        userId: row.tenant.userId,
        prefix: row.prefix,
        clientIp,
        at: now,
        reason: "revocation_request",
      });
    }
    return revoked;
  });
  await recordAccessEnded(revoked, "partner_revoked", now);
  return revoked.length > 0;
}
