import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { getEnv } from "../env";

/**
 * A job's data that must not be readable in the job table (a queued mail:
 * its address, link and code), sealed with AES-256-GCM under a key derived
 * from SECRET_KEY with HKDF-SHA256, one key per queue; the queue's name is
 * the associated data, so a payload cannot be moved to another queue. Every
 * instance derives the same key, so whichever instance runs the job opens
 * it; while SECRET_KEY_PREVIOUS is set (a rotation, docs/operations.md),
 * payloads sealed under it still open.
 */

const HKDF_SALT = "bank-connect/job-data/v1";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

function keyFor(secretKey: string, queue: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secretKey, HKDF_SALT, `job:${queue}`, 32));
}

export function sealJobData(
  queue: string,
  value: unknown,
  secretKey: string = getEnv().secretKey,
): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv("aes-256-gcm", keyFor(secretKey, queue), nonce);
  cipher.setAAD(Buffer.from(queue, "utf8"));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString("base64url");
}

/** What `sealed` holds, or null when it was not sealed for this queue under either secret. */
export function openJobData<T>(
  queue: string,
  sealed: string,
  secrets: { secretKey: string; previousSecretKey?: string } = getEnv(),
): T | null {
  const bytes = Buffer.from(sealed, "base64url");
  if (bytes.length < NONCE_BYTES + TAG_BYTES) return null;
  const nonce = bytes.subarray(0, NONCE_BYTES);
  const body = bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  for (const secretKey of [secrets.secretKey, secrets.previousSecretKey]) {
    if (!secretKey) continue;
    try {
      const decipher = createDecipheriv("aes-256-gcm", keyFor(secretKey, queue), nonce);
      decipher.setAAD(Buffer.from(queue, "utf8"));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
      return JSON.parse(plain) as T;
    } catch {
      // Not this key: try the previous one.
    }
  }
  return null;
}
