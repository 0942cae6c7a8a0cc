import type { KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import { UpstreamError } from "../types";
import { APPLICATION_KEY_PROBLEM, parseApplicationKey } from "../../env";

/**
 * Enable Banking authenticates the application by a JWT on every request
 * (docs/architecture.md#upstream-aggregators): RS256 with the application's private key, `kid` = the
 * application id, `iss` `enablebanking.com`, `aud` `api.enablebanking.com`,
 * and a lifetime of at most 24 hours. One token is signed and reused until
 * shortly before it expires. The token is a credential: it never reaches a
 * message or a log.
 */

export const JWT_ISSUER = "enablebanking.com";
export const JWT_AUDIENCE = "api.enablebanking.com";
/** Enable Banking refuses tokens that live longer than this. */
export const MAX_JWT_LIFETIME_SECONDS = 24 * 60 * 60;
export const DEFAULT_JWT_LIFETIME_SECONDS = 60 * 60;
/** A cached token is replaced this long before it expires, so it never expires in flight. */
export const JWT_RENEWAL_MARGIN_SECONDS = 5 * 60;

export interface TokenSignerOptions {
  applicationId: string;
  /** RSA private key, PEM: PKCS#8 or PKCS#1 (see {@link parseApplicationKey}). */
  privateKey: string;
  now: () => Date;
  lifetimeSeconds?: number;
}

export interface TokenSigner {
  /** A valid token: the cached one, or a freshly signed one. */
  token(): Promise<string>;
  /** Drops the cached token (after Enable Banking refused it). */
  forget(): void;
}

function assertLifetime(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds <= JWT_RENEWAL_MARGIN_SECONDS) {
    throw new RangeError(`the JWT lifetime must be an integer above ${JWT_RENEWAL_MARGIN_SECONDS}`);
  }
  if (seconds > MAX_JWT_LIFETIME_SECONDS) {
    throw new RangeError(`the JWT lifetime must be at most ${MAX_JWT_LIFETIME_SECONDS} seconds`);
  }
  return seconds;
}

export function createTokenSigner(options: TokenSignerOptions): TokenSigner {
  const lifetime = assertLifetime(options.lifetimeSeconds ?? DEFAULT_JWT_LIFETIME_SECONDS);
  let key: KeyObject | undefined;
  let cached: { token: string; issuedAt: number; expiresAt: number } | undefined;

  function signingKey(): KeyObject {
    try {
      key ??= parseApplicationKey(options.privateKey);
    } catch (cause) {
      // Without its key the application cannot authenticate at all.
      throw new UpstreamError("partner_app_inactive", APPLICATION_KEY_PROBLEM, { cause });
    }
    return key;
  }

  async function sign(issuedAt: number): Promise<string> {
    const token = await new SignJWT({})
      .setProtectedHeader({ typ: "JWT", alg: "RS256", kid: options.applicationId })
      .setIssuer(JWT_ISSUER)
      .setAudience(JWT_AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + lifetime)
      .sign(signingKey());
    cached = { token, issuedAt, expiresAt: issuedAt + lifetime };
    return token;
  }

  return {
    async token() {
      const now = Math.floor(options.now().getTime() / 1000);
      const fresh =
        cached && now >= cached.issuedAt && now < cached.expiresAt - JWT_RENEWAL_MARGIN_SECONDS;
      if (cached && fresh) return cached.token;
      return sign(now);
    },
    forget() {
      cached = undefined;
    },
  };
}
