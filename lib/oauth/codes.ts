import { recordKeyIssued, recordKeyRevoked } from "../audit/api-keys";
import { db, type Prisma } from "../db/client";
import { keyedHash } from "../crypto/keyed-hash";
import { randomToken } from "../crypto/random";
import {
  API_KEY_LIFETIME_SECONDS,
  generateApiKey,
  hashApiKey,
  shownPrefix,
} from "../keys/api-keys";
import { OAuthError } from "./errors";
import { verifiesS256 } from "./pkce";

/**
 * Authorization codes (SPEC 3.1): random, stored as a keyed hash, valid 300
 * seconds, bound to client, redirect URI and tenant. Redeemed by one
 * conditional update, so exactly one of any number of concurrent requests
 * wins; the code is consumed before the verifier is checked.
 */

export const CODE_LIFETIME_SECONDS = 300;

/** The stored form of a code (keyed hash): how a code is found again. */
export const hashCode = (code: string) => keyedHash("authorization-code", code);

export interface CodeBinding {
  flowId: string | null;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  tenantId: string;
}

export async function mintAuthorizationCode(
  tx: Prisma.TransactionClient,
  binding: CodeBinding,
  now = new Date(),
): Promise<string> {
  const code = randomToken();
  await tx.authorizationCode.create({
    data: {
      ...binding,
      codeHash: hashCode(code),
      issuedAt: now,
      expiresAt: new Date(now.getTime() + CODE_LIFETIME_SECONDS * 1000),
    },
  });
  return code;
}

export interface Redemption {
  code: string;
  codeVerifier: string;
  clientId: string;
  /** SPEC 4.3: checked only when sent. */
  redirectUri: string | null;
  /** The client's address, for the audit log. */
  clientIp?: string | null;
}

export interface IssuedKey {
  apiKey: string;
  expiresInSeconds: number;
  scope: string;
  subject: string;
}

const invalidGrant = () => new OAuthError("invalid_grant", "invalid or expired authorization code");

export async function redeemAuthorizationCode(
  request: Redemption,
  now = new Date(),
): Promise<IssuedKey> {
  const found = await db().authorizationCode.findUnique({
    where: { codeHash: hashCode(request.code) },
    select: { id: true, clientId: true, redirectUri: true },
  });
  // A code of another client, or used with another redirect URI, is not touched.
  if (!found || found.clientId !== request.clientId) throw invalidGrant();
  if (request.redirectUri !== null && request.redirectUri !== found.redirectUri)
    throw invalidGrant();

  const outcome = await db().$transaction(
    async (tx) => {
      // The one conditional update: waits for a concurrent winner's commit, then re-checks.
      const consumed = await tx.authorizationCode.updateMany({
        where: { id: found.id, consumedAt: null, expiresAt: { gt: now } },
        data: { consumedAt: now },
      });
      const code = await tx.authorizationCode.findUniqueOrThrow({
        where: { id: found.id },
        include: {
          tenant: { select: { subject: true, userId: true } },
          client: { select: { partnerId: true } },
        },
      });
      const audit = {
        clientId: code.clientId,
        partnerId: code.client.partnerId,
        userId: code.tenant.userId,
        clientIp: request.clientIp ?? null,
        at: now,
      };
      if (consumed.count === 0) {
        // SPEC 3.1: a replay revokes the key minted by the first use.
        if (code.consumedAt && code.apiKeyId) {
          const revoked = await tx.apiKey.updateManyAndReturn({
            where: { id: code.apiKeyId, revokedAt: null },
            data: { revokedAt: now },
            select: { prefix: true },
          });
          for (const key of revoked) {
            await recordKeyRevoked(tx, { ...audit, prefix: key.prefix, reason: "code_replay" });
          }
        }
        return { kind: "refused" as const };
      }
      // Consumed before the verifier is checked: a wrong verifier burns the code.
      if (!verifiesS256(request.codeVerifier, code.codeChallenge))
        return { kind: "refused" as const };

      const apiKey = generateApiKey();
      const created = await tx.apiKey.create({
        data: {
          keyHash: hashApiKey(apiKey),
          prefix: shownPrefix(apiKey),
          tenantId: code.tenantId,
          clientId: code.clientId,
          scope: code.scope,
          createdAt: now,
          expiresAt: new Date(now.getTime() + API_KEY_LIFETIME_SECONDS * 1000),
        },
      });
      await tx.authorizationCode.update({ where: { id: code.id }, data: { apiKeyId: created.id } });
      await recordKeyIssued(tx, { ...audit, prefix: created.prefix, scope: code.scope });
      return {
        kind: "issued" as const,
        key: {
          apiKey,
          expiresInSeconds: API_KEY_LIFETIME_SECONDS,
          scope: code.scope,
          subject: code.tenant.subject,
        },
      };
    },
    { timeout: 20_000, maxWait: 20_000 },
  );
  if (outcome.kind === "refused") throw invalidGrant();
  return outcome.key;
}
