import { getEnv } from "./env";

/**
 * Structured logging, one JSON object per line. Fields whose names suggest a
 * secret, key, code or bank data are redacted before anything is written
 * (docs/security.md), so a careless call site cannot leak them.
 */

type Level = "debug" | "info" | "warn" | "error";
const LEVEL_RANK = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;

const SENSITIVE_FIELD =
  /(secret|password|passphrase|token|api_?key|apikey|authorization|cookie|code|verifier|pin|uid|iban|bban|private|session|enc)$/i;

export const REDACTED = "[redacted]";

/**
 * Secrets recognisable by their shape, wherever they appear in text (an
 * error message that quotes its input, a URL): API keys, client secrets and
 * PEM keys. Field names catch the rest.
 */
const SECRET_IN_TEXT = [
  /\b(ebk|obs)_[A-Za-z0-9_-]{8,}/g,
  /-----BEGIN [A-Z ]+-----[\s\S]*?(-----END [A-Z ]+-----|$)/g,
] as const;

export function scrubText(text: string): string {
  return SECRET_IN_TEXT.reduce((scrubbed, pattern) => scrubbed.replace(pattern, REDACTED), text);
}

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return scrubText(value);
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) {
    return {
      name: value.name,
      message: scrubText(value.message),
      cause: redact(value.cause, depth + 1),
    };
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      SENSITIVE_FIELD.test(key) ? REDACTED : redact(child, depth + 1),
    ]),
  );
}

function write(level: Level, event: string, fields: Record<string, unknown> = {}) {
  if (LEVEL_RANK[level] < LEVEL_RANK[getEnv().logLevel]) return;
  const line = JSON.stringify({
    time: new Date().toISOString(),
    level,
    event,
    ...(redact(fields) as object),
  });
  if (level === "error" || level === "warn") console.error(line);
  else console.log(line);
}

export const log = {
  debug: (event: string, fields?: Record<string, unknown>) => write("debug", event, fields),
  info: (event: string, fields?: Record<string, unknown>) => write("info", event, fields),
  warn: (event: string, fields?: Record<string, unknown>) => write("warn", event, fields),
  error: (event: string, fields?: Record<string, unknown>) => write("error", event, fields),
};
