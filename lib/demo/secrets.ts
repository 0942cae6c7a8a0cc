import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { getEnv } from "../env";

/**
 * The demo partner's own secrets, derived from SECRET_KEY (it is this
 * deployment's partner backend): keyed hashes for the browser id and the
 * OAuth state, a sealing key for what it stores (code verifier, API key,
 * relayed private key), and its client secret.
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

/**
 * The seeded demo client's secret in local mode (scripts/lib/seed.ts derives
 * the same value: "obs_" + HMAC(SECRET_KEY, "demo-client-secret")). In
 * production mode the seed sets a random secret that nobody knows, so the
 * demo cannot exchange codes there until that is changed.
 */
export function demoClientSecret(): string {
  return (
    "obs_" +
    createHmac("sha256", getEnv().secretKey).update("demo-client-secret").digest("base64url")
  );
}

export const DEMO_CLIENT_ID = "obc_demo_budget_app";
export const DEMO_CALLBACK_PATH = "/demo/callback";

export const demoRedirectUri = () => `${getEnv().issuer}${DEMO_CALLBACK_PATH}`;
