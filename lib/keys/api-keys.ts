import { recordKeyRevoked } from "../audit/api-keys";
import { db } from "../db/client";
import { isOneOf, queryOne, sql } from "../db/sql";
import { keyedHash, keyedHashCandidates } from "../crypto/keyed-hash";
import { randomToken } from "../crypto/random";

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

/**
 * The active key's principal, or null when unknown, revoked or expired
 * (docs/protocol.md#api-keys): one statement joins the key to its tenant, user, client and the
 * client's partner, so every data request pays one round trip for it.
 */
export async function findActiveApiKey(
  key: string,
  now = new Date(),
): Promise<ApiKeyPrincipal | null> {
  if (!key.startsWith(API_KEY_PREFIX) || key.length > 200) return null;
  return queryOne<ApiKeyPrincipal>(
    sql`SELECT k."id" AS "apiKeyId", k."tenantId", t."subject", k."clientId", c."partnerId",
               k."scope", k."expiresAt", u."email",
               COALESCE(p."status" = 'suspended', false) AS "partnerSuspended"
          FROM "ApiKey" k
          JOIN "Tenant" t ON t."id" = k."tenantId"
          JOIN "User" u ON u."id" = t."userId"
          JOIN "Client" c ON c."id" = k."clientId"
          LEFT JOIN "Partner" p ON p."id" = c."partnerId"
         WHERE ${isOneOf(sql`k."keyHash"`, apiKeyHashCandidates(key))}
           AND k."revokedAt" IS NULL
           AND k."expiresAt" > ${now}`,
  );
}

/**
 * RFC 7009 §2.1: only a key issued to the authenticated client is affected. The
 * revocation and its audit event commit together.
 */
export async function revokeClientApiKey(
  key: string,
  clientId: string,
  now = new Date(),
  clientIp: string | null = null,
): Promise<boolean> {
  return db().$transaction(async (tx) => {
    const revoked = await tx.apiKey.updateManyAndReturn({
      where: { keyHash: { in: apiKeyHashCandidates(key) }, clientId, revokedAt: null },
      data: { revokedAt: now },
      select: {
        prefix: true,
        client: { select: { partnerId: true } },
        tenant: { select: { userId: true } },
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
    return revoked.length > 0;
  });
}
