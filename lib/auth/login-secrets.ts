import { randomInt } from "node:crypto";
import { getEnv } from "../env";
import { cookieName, readCookie, serializeCookie } from "../http/cookies";
import { keyedHash, keyedHashCandidates, matchesKeyedHash } from "../crypto/keyed-hash";
import { randomToken } from "../crypto/random";

/**
 * The secrets of a login challenge (docs/architecture.md#domain-model, docs/protocol.md#sign-in): the
 * magic-link token, the 6-digit PIN and the nonce cookie that binds a
 * challenge to the browser that asked for it. Only keyed hashes are stored.
 */

/** A challenge (its PIN, and its link with it) lives 15 minutes (/docs/errors). */
export const LOGIN_CHALLENGE_LIFETIME_MINUTES = 15;
/** A PIN allows 5 attempts (/docs/errors, docs/security.md). */
export const MAX_PIN_ATTEMPTS = 5;
/** The PIN has 6 digits (/docs/errors). */
export const PIN_DIGITS = 6;
const PIN_RANGE = 10 ** PIN_DIGITS;

/**
 * A uniformly random 6-digit PIN, leading zeros kept. node:crypto's randomInt
 * draws from the CSPRNG with rejection sampling, so there is no modulo bias.
 */
export function newPin(): string {
  return randomInt(PIN_RANGE).toString().padStart(PIN_DIGITS, "0");
}

/**
 * Per docs/architecture.md#domain-model, an HMAC under the server secret (a bare hash of six digits
 * is reversible), salted with the challenge id so that equal PINs of two
 * challenges hash differently.
 */
export function hashPin(challengeId: string, pin: string): string {
  return keyedHash("pin", `${challengeId}:${pin}`);
}

/** Constant-time (docs/security.md): a typed PIN against the stored hash. */
export function pinMatches(challengeId: string, pin: string, pinHash: string): boolean {
  return matchesKeyedHash("pin", `${challengeId}:${pin}`, pinHash);
}

/** A 256-bit magic-link token (base64url). */
export const newLinkToken = (): string => randomToken();

export const hashLinkToken = (token: string): string => keyedHash("link-token", token);

export const hashBrowserNonce = (nonce: string): string => keyedHash("browser-nonce", nonce);

/** Lookups by hash accept both secrets' while SECRET_KEY rotates. */
export const linkTokenHashCandidates = (token: string): string[] =>
  keyedHashCandidates("link-token", token);
export const browserNonceHashCandidates = (nonce: string): string[] =>
  keyedHashCandidates("browser-nonce", nonce);

/** Constant-time: is this browser's nonce the one the challenge was requested with? */
export function isSameBrowser(browserNonce: string | null, browserHash: string): boolean {
  if (!browserNonce) return false;
  return matchesKeyedHash("browser-nonce", browserNonce, browserHash);
}

/**
 * The nonce cookie outlives the 15-minute challenge it was set for, so the
 * link still signs in at the very end of the challenge's life. A browser
 * keeps one nonce across requests (reuse the cookie when present), which is
 * what lets a new request supersede the older ones of the same browser.
 */
export const LOGIN_NONCE_LIFETIME_SECONDS = 60 * 60;

const isHttps = () => getEnv().issuer.startsWith("https://");

/** `__Host-bc_login_nonce` on https (Secure, this origin only), `bc_login_nonce` locally. */
export const loginNonceCookieName = (): string => cookieName("bc_login_nonce", isHttps());

/** A fresh 256-bit browser nonce. */
export const newBrowserNonce = (): string => randomToken();

/**
 * The Set-Cookie value: HttpOnly, SameSite=Lax (the magic link is a top-level
 * navigation from the mail client, which Lax lets through), Path=/.
 */
export function loginNonceCookie(nonce: string): string {
  return serializeCookie(loginNonceCookieName(), nonce, {
    maxAgeSeconds: LOGIN_NONCE_LIFETIME_SECONDS,
    https: isHttps(),
  });
}

/** The request's browser nonce, or null. */
export const readLoginNonce = (request: Request): string | null =>
  readCookie(request, loginNonceCookieName());
