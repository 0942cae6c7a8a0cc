import pino, { type Logger } from "pino";
import { getEnv } from "./env";
import { currentRequestId } from "./request-context";

/**
 * Structured logging with pino, one JSON object per line: `level`, `time`
 * (ISO 8601), `event`, the request's `requestId` when there is one, then the
 * fields. debug and info go to stdout, warn and error to stderr
 * (docs/observability.md). No secret, key, code or bank data may reach a log,
 * so two layers stand between a careless call site and the output:
 * - every field whose name suggests a secret, key, code or bank data is
 *   replaced, at any depth, and secrets recognisable by their shape are
 *   scrubbed from every string (`redact` below);
 * - pino's own `redact` paths blank the header and field names that name a
 *   secret without ending in one of those words (`x-api-key`, `privateKey`).
 */

type Level = "debug" | "info" | "warn" | "error";

const SENSITIVE_FIELD =
  /(secret|password|passphrase|token|api[_-]?key|apikey|private_?key|authorization|cookie|code|verifier|pin|uid|iban|bban|private|session|enc|email)$/i;

export const REDACTED = "[redacted]";

/** Names blanked by pino's redaction wherever they stand at the top or one level down. */
const REDACTED_NAMES = [
  "authorization",
  "cookie",
  "x-api-key",
  "set-cookie",
  "privateKey",
  "private_key",
  "password",
  "passphrase",
  "code",
  "code_verifier",
  "client_secret",
  "apiKey",
  "email",
];
const REDACT_PATHS = REDACTED_NAMES.flatMap((name) => [`["${name}"]`, `*["${name}"]`]);

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

/** Where the lines go: a stream per level, looked up at each write (tests replace them). */
export interface LogDestination {
  write(line: string): void;
}

const toStdout: LogDestination = { write: (line) => void process.stdout.write(line) };
const toStderr: LogDestination = { write: (line) => void process.stderr.write(line) };

/** A pino logger with the service's format and redaction, writing to `destinations`. */
export function createLogger(
  level: Level | "silent",
  destinations: { out: LogDestination; err: LogDestination } = { out: toStdout, err: toStderr },
): Logger {
  return pino(
    {
      level,
      base: undefined,
      messageKey: "event",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        level: (label) => ({ level: label }),
        log: (fields) => redact(fields) as Record<string, unknown>,
      },
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { requestId } : {};
      },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
    },
    pino.multistream(
      [
        { level: "debug", stream: destinations.out },
        { level: "warn", stream: destinations.err },
      ],
      { dedupe: true },
    ),
  );
}

let logger: Logger | undefined;

function write(level: Level, event: string, fields: Record<string, unknown> = {}) {
  logger ??= createLogger(getEnv().logLevel);
  logger[level](fields, event);
}

export const log = {
  debug: (event: string, fields?: Record<string, unknown>) => write("debug", event, fields),
  info: (event: string, fields?: Record<string, unknown>) => write("info", event, fields),
  warn: (event: string, fields?: Record<string, unknown>) => write("warn", event, fields),
  error: (event: string, fields?: Record<string, unknown>) => write("error", event, fields),
};
