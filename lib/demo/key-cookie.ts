import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { clearCookie, serializeCookie } from "../http/cookies";

/**
 * Where the demo partner keeps a connected user's API key and relayed
 * private key: only in the browser that connected, in a cookie sealed with
 * AES-256-GCM under a key that exists only in this process's memory. The
 * service's database never holds them, so neither a copy of the database nor
 * SECRET_KEY opens them; a restart forgets the key and with it every demo
 * connection. The cookie is HttpOnly, SameSite=Lax, Secure on https, sent
 * only to /demo, and lives 30 minutes; the sealed payload carries its own
 * expiry and the demo session it belongs to, so a replayed or transplanted
 * cookie is refused. (One process holds the key: a demo served by several
 * instances would need sticky sessions.)
 */

export const KEYS_COOKIE_LIFETIME_SECONDS = 30 * 60;
export const KEYS_COOKIE_PATH = "/demo";
const VERSION = 1;
const ADDITIONAL_DATA = Buffer.from("bank-connect/demo/keys-cookie/v1", "utf8");

export interface DemoCredentials {
  apiKey: string;
  /** The relayed private key; null in partner-key mode, where the partner's own key opens the data. */
  privateKey: string | null;
}

interface Payload extends DemoCredentials {
  v: number;
  /** The DemoSession the cookie belongs to. */
  sid: string;
  /** Expiry, in milliseconds since the epoch. */
  exp: number;
}

const globalForDemo = globalThis as unknown as { bankConnectDemoCookieKey?: Buffer };

/** One random key per process, shared by every route bundle that imports this module. */
function processKey(): Buffer {
  globalForDemo.bankConnectDemoCookieKey ??= randomBytes(32);
  return globalForDemo.bankConnectDemoCookieKey;
}

/** `__Secure-` on https: a cookie limited to /demo cannot take the `__Host-` prefix. */
export const keysCookieName = (https: boolean) => (https ? "__Secure-demo_keys" : "demo_keys");

/** The sealed cookie value: base64url of nonce ‖ tag ‖ ciphertext. */
export function sealCredentials(
  sessionId: string,
  credentials: DemoCredentials,
  now = Date.now(),
): string {
  const payload: Payload = {
    v: VERSION,
    sid: sessionId,
    apiKey: credentials.apiKey,
    privateKey: credentials.privateKey,
    exp: now + KEYS_COOKIE_LIFETIME_SECONDS * 1000,
  };
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", processKey(), nonce);
  cipher.setAAD(ADDITIONAL_DATA);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(payload), "utf8"), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), sealed]).toString("base64url");
}

function openPayload(value: string): Payload | null {
  const bytes = Buffer.from(value, "base64url");
  if (bytes.length < 29) return null;
  try {
    const decipher = createDecipheriv("aes-256-gcm", processKey(), bytes.subarray(0, 12));
    decipher.setAAD(ADDITIONAL_DATA);
    decipher.setAuthTag(bytes.subarray(12, 28));
    const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
    return JSON.parse(text.toString("utf8")) as Payload;
  } catch {
    return null;
  }
}

/**
 * The credentials in a keys cookie, or null unless it was sealed by this
 * process, for this session, and has not expired.
 */
export function openCredentials(
  value: string | null | undefined,
  sessionId: string,
  now = Date.now(),
): DemoCredentials | null {
  if (!value) return null;
  const payload = openPayload(value);
  if (!payload || payload.v !== VERSION || payload.sid !== sessionId) return null;
  if (typeof payload.exp !== "number" || payload.exp <= now) return null;
  if (typeof payload.apiKey !== "string" || payload.apiKey === "") return null;
  const privateKey = typeof payload.privateKey === "string" ? payload.privateKey : null;
  return { apiKey: payload.apiKey, privateKey };
}

export function keysCookie(value: string, https: boolean): string {
  return serializeCookie(keysCookieName(https), value, {
    maxAgeSeconds: KEYS_COOKIE_LIFETIME_SECONDS,
    https,
    sameSite: "Lax",
    path: KEYS_COOKIE_PATH,
  });
}

/** Deletes the keys cookie (on revoke, and when a new connection starts). */
export const clearKeysCookie = (https: boolean) =>
  clearCookie(keysCookieName(https), https, KEYS_COOKIE_PATH);
