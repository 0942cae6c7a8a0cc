import { recordKeyRevoked } from "../audit/api-keys";
import { db } from "../db/client";
import type { Statement } from "../db/sql";
import { keyedHash, keyedHashCandidates } from "../crypto/keyed-hash";
import { randomToken } from "../crypto/random";
import { ENDED_KEY_SELECT, recordAccessEnded } from "../webhooks/producers";
import { findActiveKey, runKeyedRead, type ActiveKeyRow, type KeyCheck } from "./queries";

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

/** The active key and what it stands for: its tenant, subject, client, partner, scope, expiry and user. */
export type ApiKeyPrincipal = ActiveKeyRow;

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

export type { KeyCheck };

/**
 * The hashes a string is looked up by (docs/protocol.md#api-keys); null for
 * a string that cannot be a key, which is never looked up.
 */
function lookupHashes(key: string): string[] | null {
  if (!key.startsWith(API_KEY_PREFIX) || key.length > 200) return null;
  return apiKeyHashCandidates(key);
}

/**
 * The active key's principal, or null when unknown, revoked or expired: one
 * statement joins the key to its tenant, user, client and the client's partner.
 */
export async function findActiveApiKey(
  key: string,
  now = new Date(),
): Promise<ApiKeyPrincipal | null> {
  const hashes = lookupHashes(key);
  return hashes ? findActiveKey(hashes, now) : null;
}

export interface KeyedRead<Row> {
  key: KeyCheck;
  /** The read's rows in its own order; none for a suspended partner's key. */
  rows: Row[];
}

/**
 * The key check and a read of the key's tenant in one statement: one round
 * trip for a data request instead of two. `read` is a statement declared
 * with the key check (lib/keys/queries.ts, withKeyCheck), given the key's
 * hash candidates and the time; `present` names a column of the read that
 * is never null, telling a row of the read from the key's row alone. Null
 * when the key is not active. The rows carry the key check's columns too
 * (`key.…`), which the read's callers ignore.
 */
export async function readWithApiKey<Row extends object>(
  key: string,
  read: (hashes: readonly string[], now: Date) => Statement,
  present: keyof Row & string,
  now = new Date(),
): Promise<KeyedRead<Row> | null> {
  const hashes = lookupHashes(key);
  if (!hashes) return null;
  const rows = await runKeyedRead<Row>(read(hashes, now));
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
