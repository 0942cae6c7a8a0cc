import { isOneOf, query, queryOne, sql, statement } from "../db/sql";

/**
 * The token endpoint's hand-written statements (docs/database.md#hand-written-statements),
 * each on a hot request path: one round trip where the query API would take several.
 * - oauth.redeemCode: the code exchange, a conditional UPDATE … RETURNING that
 *   claims the code and writes the key and its event in the same statement.
 * - oauth.clientForAuthentication: the client, both secret hashes and its
 *   partner's status for every token and revoke request.
 * - oauth.grantedTenants: the person and partner of every grant mailed in a
 *   batch of exchanges, one statement text (one array parameter) for any size.
 */

const EXAMPLE_NOW = new Date("2026-01-01T00:00:00Z");
const EXAMPLE_UUID = "00000000-0000-0000-0000-000000000000";

/** What a redemption writes: the key it mints and its api_key.issued event. */
export interface CodeRedemption {
  /** The code's hash candidates (both secrets' while SECRET_KEY rotates). */
  codeHashes: readonly string[];
  clientId: string;
  /** Checked only when sent. */
  redirectUri: string | null;
  /** The verifier's S256 challenge; null for a malformed verifier (never matches). */
  challenge: string | null;
  now: Date;
  key: { id: string; keyHash: string; prefix: string; partnerId: string | null; expiresAt: Date };
  event: {
    id: string;
    at: Date;
    type: string;
    actorKind: string;
    actorId: string | null;
    partnerId: string | null;
    clientId: string | null;
    subject: string | null;
    clientIp: string | null;
  };
}

export interface RedeemedCode {
  /** A key was minted: the verifier matched the code's challenge. */
  issued: boolean;
  scope: string;
  subject: string;
  /** The partner has an enabled webhook endpoint for `access.granted` (docs/events.md). */
  heard: boolean;
}

const exampleRedemption = (codeHashes: string[]): [CodeRedemption] => [
  {
    codeHashes,
    clientId: "cli_example",
    redirectUri: "https://partner.example/callback",
    challenge: "challenge",
    now: EXAMPLE_NOW,
    key: {
      id: EXAMPLE_UUID,
      keyHash: "key-hash",
      prefix: "ebk_example",
      partnerId: EXAMPLE_UUID,
      expiresAt: EXAMPLE_NOW,
    },
    event: {
      id: EXAMPLE_UUID,
      at: EXAMPLE_NOW,
      type: "api_key.issued",
      actorKind: "client",
      actorId: "cli_example",
      partnerId: EXAMPLE_UUID,
      clientId: "cli_example",
      subject: null,
      clientIp: null,
    },
  },
];

/**
 * Single use, atomic in one statement: the code is consumed whatever the
 * verifier (a wrong one burns it); the key and its event are written only
 * when the challenge matches, together or not at all. Of concurrent
 * redemptions exactly one finds the code unconsumed. No row: nothing was
 * consumed.
 */
const redeemCode = statement(
  "oauth.redeemCode",
  ({ codeHashes, clientId, redirectUri, challenge, now, key, event }: CodeRedemption) => sql`
    WITH consumed AS (
      UPDATE "AuthorizationCode" c
         SET "consumedAt" = ${now},
             "apiKeyId" = CASE WHEN c."codeChallenge" = ${challenge}::text THEN ${key.id}::uuid END
        FROM "Tenant" t
       WHERE ${isOneOf(sql`c."codeHash"`, codeHashes)}
         AND c."clientId" = ${clientId}
         AND (${redirectUri}::text IS NULL OR c."redirectUri" = ${redirectUri}::text)
         AND c."consumedAt" IS NULL
         AND c."expiresAt" > ${now}
         AND t."id" = c."tenantId"
      RETURNING c."apiKeyId", c."tenantId", c."clientId", c."scope", t."subject", t."userId"
    ), minted AS (
      INSERT INTO "ApiKey" ("id", "keyHash", "prefix", "tenantId", "clientId", "scope",
                            "createdAt", "expiresAt")
      SELECT "apiKeyId", ${key.keyHash}::text, ${key.prefix}::text, "tenantId", "clientId",
             "scope", ${now}::timestamp, ${key.expiresAt}::timestamp
        FROM consumed WHERE "apiKeyId" IS NOT NULL
    ), recorded AS (
      INSERT INTO "AuditEvent" ("id", "at", "type", "actorKind", "actorId", "partnerId",
                                "clientId", "userId", "subject", "clientIp", "details")
      SELECT ${event.id}::uuid, ${event.at}::timestamp, ${event.type}::text,
             ${event.actorKind}::"AuditActorKind", ${event.actorId}::text, ${event.partnerId}::uuid,
             ${event.clientId}::text, "userId", ${event.subject}::text, ${event.clientIp}::text,
             jsonb_build_object('scope', "scope")
        FROM consumed WHERE "apiKeyId" IS NOT NULL
    )
    SELECT "apiKeyId" IS NOT NULL AS "issued", "scope", "subject",
           EXISTS (SELECT 1 FROM "WebhookEndpoint" w
                    WHERE w."partnerId" = ${key.partnerId}::uuid AND w."disabledAt" IS NULL
                      AND 'access.granted' = ANY (w."eventTypes")) AS "heard"
      FROM consumed`,
  [exampleRedemption(["code-hash"]), exampleRedemption(["code-hash", "code-hash-previous"])],
);

/** Redeems a code in one statement; null when nothing was consumed. */
export function redeemCodeOnce(redemption: CodeRedemption): Promise<RedeemedCode | null> {
  return queryOne<RedeemedCode>(redeemCode(redemption));
}

export interface ClientForAuthentication {
  id: string;
  partnerId: string | null;
  secretHash: string;
  previousSecretHash: string | null;
  previousSecretExpiresAt: Date | null;
  /** Its partner is suspended (docs/partner-suspension.md). */
  partnerSuspended: boolean;
}

const clientForAuthentication = statement(
  "oauth.clientForAuthentication",
  (clientId: string) =>
    sql`SELECT c."id", c."partnerId", c."secretHash", c."previousSecretHash",
               c."previousSecretExpiresAt",
               COALESCE(p."status" = 'suspended', false) AS "partnerSuspended"
          FROM "Client" c
          LEFT JOIN "Partner" p ON p."id" = c."partnerId"
         WHERE c."id" = ${clientId}`,
  [["cli_example"]],
);

/** The client with both secret hashes and its partner's status, or null. */
export function findClientForAuthentication(
  clientId: string,
): Promise<ClientForAuthentication | null> {
  return queryOne<ClientForAuthentication>(clientForAuthentication(clientId));
}

export interface GrantedTenant {
  subject: string;
  partnerId: string;
  email: string;
  userLocale: string | null;
  partnerName: string;
  partnerDisplayName: string | null;
  partnerLanguage: string | null;
}

const grantedTenants = statement(
  "oauth.grantedTenants",
  (subjects: readonly string[]) =>
    sql`SELECT t."subject", t."partnerId", u."email", u."locale" AS "userLocale", p."name" AS "partnerName",
               p."displayName" AS "partnerDisplayName", p."defaultLanguage" AS "partnerLanguage"
          FROM "Tenant" t JOIN "User" u ON u."id" = t."userId" JOIN "Partner" p ON p."id" = t."partnerId"
         WHERE t."subject" = ANY(${subjects}::text[])`,
  [[["wl:example:connect:person@example.com"]]],
);

/** Each tenant's person and partner (partners' tenants only), for the grant mails. */
export function findGrantedTenants(subjects: readonly string[]): Promise<GrantedTenant[]> {
  return query<GrantedTenant>(grantedTenants(subjects));
}
