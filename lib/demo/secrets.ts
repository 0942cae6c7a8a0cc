import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { db } from "../db/client";
import { getEnv } from "../env";

/**
 * The demo partner's own secrets, derived from SECRET_KEY (it is this
 * deployment's partner backend): keyed hashes for the browser id, the OAuth
 * state and the start form's token, and a sealing key for what its database
 * keeps (the PKCE verifier until the callback, and its client secret). No
 * user's key is ever sealed with these: see ./key-cookie.ts.
 */

const DEMO_SALT = "bank-connect/demo/v1";

function subKey(purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", getEnv().secretKey, DEMO_SALT, `demo:${purpose}`, 32));
}

/** HMAC-SHA256 under the demo's sub-key for `purpose`, hex. */
export function demoHash(purpose: "browser" | "state" | "csrf", value: string): string {
  return createHmac("sha256", subKey(purpose)).update(value, "utf8").digest("hex");
}

/** AES-256-GCM, base64url of nonce ‖ tag ‖ ciphertext. */
export function sealForStorage(plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", subKey("storage"), nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), ciphertext]).toString("base64url");
}

export function openFromStorage(sealed: string): string {
  const bytes = Buffer.from(sealed, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", subKey("storage"), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
}

/** The sealed value opened, or null when it was sealed under another SECRET_KEY or altered. */
export function openStoredOrNull(sealed: string): string | null {
  try {
    return openFromStorage(sealed);
  } catch {
    return null;
  }
}

export const DEMO_CLIENT_ID = "obc_demo_budget_app";
export const DEMO_CALLBACK_PATH = "/demo/callback";

export const demoRedirectUri = () => `${getEnv().issuer}${DEMO_CALLBACK_PATH}`;

/**
 * The demo client's secret, as the seed made it (random per installation,
 * kept sealed for the demo alone; scripts/lib/seed.ts), or null before the
 * seed ran. Read on every use, so a new seed takes effect without a restart.
 */
export async function demoClientSecret(): Promise<string | null> {
  const stored = await db().demoClientSecret.findUnique({ where: { clientId: DEMO_CLIENT_ID } });
  return stored ? openStoredOrNull(stored.secretEnc) : null;
}
