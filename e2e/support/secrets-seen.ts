import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * What the journeys saw that must never reach the server's log (docs/security.md:
 * no secret, key, code or bank data in logs). The server tees its output to
 * SERVER_LOG; the tests append every secret value they handle to SECRETS_SEEN;
 * the last project scans one for the other.
 */

const DATA_DIR = path.resolve(import.meta.dirname, "../../.data");
export const SERVER_LOG = path.join(DATA_DIR, "e2e-server.log");
export const SECRETS_SEEN = path.join(DATA_DIR, "e2e-secrets-seen.jsonl");

export type SecretKind =
  | "api key"
  | "client secret"
  | "authorization code"
  | "pin"
  | "magic-link token"
  | "private key"
  | "uid"
  | "iban"
  | "passphrase"
  | "webhook secret"
  | "user";

export interface SeenSecret {
  kind: SecretKind;
  value: string;
}

/** Starts an empty record (the server does this when it starts). */
export function resetSecretsSeen(): void {
  writeFileSync(SECRETS_SEEN, "", { mode: 0o600 });
}

export function recordSecret(kind: SecretKind, value: string | null | undefined): void {
  if (!value) return;
  appendFileSync(SECRETS_SEEN, `${JSON.stringify({ kind, value })}\n`, { mode: 0o600 });
}

/** Records the sensitive fields of an opened envelope's payload. */
export function recordBankData(payload: unknown): void {
  if (typeof payload !== "object" || payload === null) return;
  const fields = payload as Record<string, unknown>;
  for (const [name, kind] of [
    ["uid", "uid"],
    ["iban", "iban"],
  ] as const) {
    const value = fields[name];
    if (typeof value === "string") recordSecret(kind, value);
  }
}

export function readSecretsSeen(): SeenSecret[] {
  if (!existsSync(SECRETS_SEEN)) return [];
  return readFileSync(SECRETS_SEEN, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as SeenSecret);
}
