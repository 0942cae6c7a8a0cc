import { randomUUID } from "node:crypto";
import { keyIssuedColumns, recordKeyRevoked } from "../audit/api-keys";
import { db, type Prisma } from "../db/client";
import { keyedHash, keyedHashCandidates } from "../crypto/keyed-hash";
import { randomToken } from "../crypto/random";
import { mintApiKey, type MintedKey } from "../keys/mint";
import { ENDED_KEY_SELECT, recordAccessEnded, recordAccessGranted } from "../webhooks/producers";
import { mailAccessGrantedLater } from "./access-mail";
import { OAuthError } from "./errors";
import { redeemCodeOnce, type RedeemedCode } from "./queries";
import { isWellFormedVerifier, toS256Challenge } from "./pkce";

/**
 * Authorization codes (RFC 6749 §4.1.2; docs/protocol.md#authorization-codes): random, stored as a keyed hash, valid 300
 * seconds, bound to client, redirect URI and tenant. Redeemed by one
 * conditional update, so exactly one of any number of concurrent requests
 * wins; the code is consumed before the verifier is checked.
 */

export const CODE_LIFETIME_SECONDS = 300;

/** The stored form of a code (keyed hash): how a code is found again. */
export const hashCode = (code: string) => keyedHash("authorization-code", code);
/** Both secrets' hashes while SECRET_KEY rotates: a code issued just before still redeems. */
const codeHashCandidates = (code: string) => keyedHashCandidates("authorization-code", code);

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
  /** The authenticated client and its partner (for the audit log). */
  clientId: string;
  partnerId: string | null;
  /** Checked only when sent (/docs/token). */
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

/**
 * Single use (RFC 6749 §4.1.2; docs/protocol.md#authorization-codes), atomic
 * in one statement: the code is consumed whatever the verifier (a wrong one
 * burns it); the key, its link and api_key.issued are written only when the
 * verifier's S256 matches, together or not at all. Of concurrent redemptions
 * exactly one finds the code unconsumed. Only the public challenge reaches SQL.
 */
async function consumeAndMint(
  request: Redemption,
  key: MintedKey,
  now: Date,
): Promise<RedeemedCode | null> {
  const challenge = isWellFormedVerifier(request.codeVerifier)
    ? toS256Challenge(request.codeVerifier)
    : null;
  const event = keyIssuedColumns({
    clientId: request.clientId,
    partnerId: key.partnerId,
    prefix: key.prefix,
    clientIp: request.clientIp ?? null,
    at: now,
  });
  return redeemCodeOnce({
    codeHashes: codeHashCandidates(request.code),
    clientId: request.clientId,
    redirectUri: request.redirectUri,
    challenge,
    now,
    key: {
      id: key.id,
      keyHash: key.keyHash,
      prefix: key.prefix,
      partnerId: key.partnerId,
      expiresAt: new Date(now.getTime() + key.expiresInSeconds * 1000),
    },
    event: { id: randomUUID(), ...event },
  });
}

/**
 * A redemption that consumed nothing: when the code is this client's and
 * was consumed already, this is a replay, and the key its first use minted
 * is revoked (RFC 6749 §4.1.2; docs/protocol.md#authorization-codes), with its event, in one transaction. Rare by
 * nature, so it keeps the plain ORM calls.
 */
async function revokeReplayedKey(request: Redemption, now: Date): Promise<void> {
  const ended = await db().$transaction(async (tx) => {
    const code = await tx.authorizationCode.findFirst({
      where: { codeHash: { in: codeHashCandidates(request.code) } },
      select: {
        clientId: true,
        redirectUri: true,
        consumedAt: true,
        apiKeyId: true,
        tenant: { select: { userId: true } },
        client: { select: { partnerId: true } },
      },
    });
    // A code of another client, or used with another redirect URI, is not touched.
    if (!code?.consumedAt || !code.apiKeyId || code.clientId !== request.clientId) return [];
    if (request.redirectUri !== null && request.redirectUri !== code.redirectUri) return [];
    const revoked = await tx.apiKey.updateManyAndReturn({
      where: { id: code.apiKeyId, revokedAt: null },
      data: { revokedAt: now },
      select: { prefix: true, ...ENDED_KEY_SELECT },
    });
    for (const key of revoked) {
      await recordKeyRevoked(tx, {
        clientId: code.clientId,
        partnerId: code.client.partnerId,
        userId: code.tenant.userId,
        prefix: key.prefix,
        clientIp: request.clientIp ?? null,
        at: now,
        reason: "code_replay",
      });
    }
    return revoked;
  });
  // The partner hears that the key its first exchange got no longer works (access.ended).
  await recordAccessEnded(ended, "code_replay", now);
}

export async function redeemAuthorizationCode(
  request: Redemption,
  now = new Date(),
): Promise<IssuedKey> {
  const key = mintApiKey(request.partnerId);
  const consumed = await consumeAndMint(request, key, now);
  if (!consumed) await revokeReplayedKey(request, now);
  if (!consumed?.issued) throw invalidGrant();
  mailAccessGrantedLater({ tenantSubject: consumed.subject, partnerId: request.partnerId });
  // A partner without an endpoint for the event costs the exchange no further statement.
  if (consumed.heard) {
    await recordAccessGranted({
      partnerId: request.partnerId,
      clientId: request.clientId,
      user: consumed.subject,
      at: now,
    });
  }
  return {
    apiKey: key.apiKey,
    expiresInSeconds: key.expiresInSeconds,
    scope: consumed.scope,
    subject: consumed.subject,
  };
}
