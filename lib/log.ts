import { isSpanContextValid, trace } from "@opentelemetry/api";
import pino, { type Logger } from "pino";
import { getEnv } from "./env";
import { currentRequestId } from "./request-context";

/**
 * Structured logging with pino, one JSON object per line: `level`, `time`
 * (ISO 8601), `event`, the request's `requestId` when there is one, `trace_id`
 * and `span_id` inside a traced request, then the fields. debug and info go to
 * stdout, warn and error to stderr (docs/observability.md). No secret, key,
 * code or bank data may reach a log, so two layers stand between a careless
 * call site and the output:
 * - every field named in SENSITIVE_FIELDS is replaced, at any depth, and
 *   secrets recognisable by their shape are scrubbed from every string, error
 *   messages and stacks included (`redact` below);
 * - pino's own `redact` paths blank the header names that carry credentials.
 * Names are matched whole (case, `_` and `-` ignored), never by their ending:
 * `status_code` and `countryCode` are logged, `code` and `sessionId` are not.
 */

type Level = "debug" | "info" | "warn" | "error";

/**
 * The field names whose values never reach a log, compared without case, `_`
 * and `-`. A new field holding a secret, a key, a code, an address or bank
 * data gets its name added here (lib/log.test.ts lists what must stay hidden).
 */
export const SENSITIVE_FIELDS: readonly string[] = [
  // Credentials and secrets
  "secret",
  "secrets",
  "clientSecret",
  "csrfSecret",
  "secretEnc",
  "secretHash",
  "secretKey",
  "secretKeyPrevious",
  "previousSecretHash",
  "password",
  "passphrase",
  "pin",
  "pinHash",
  "token",
  "accessToken",
  "refreshToken",
  "idToken",
  "linkToken",
  "linkTokenHash",
  "apiKey",
  "apiKeys",
  "xApiKey",
  "key",
  "keyHash",
  "privateKey",
  "clientKey",
  "sealingKey",
  "wrappedKey",
  "nameKeys",
  "prf",
  "authorization",
  "proxyAuthorization",
  "cookie",
  "setCookie",
  "cookieHash",
  // Codes and the PKCE verifier
  "code",
  "codes",
  "codeHash",
  "authorizationCode",
  "codeVerifier",
  "codeVerifierEnc",
  "verifier",
  "codeChallenge",
  "otp",
  // Sessions
  "session",
  "sessions",
  "sessionId",
  "sessionToken",
  "upstreamSession",
  "upstreamSessionEnc",
  "upstreamSessionHash",
  // People and their banks
  "email",
  "emails",
  "to",
  "uid",
  "uidEnc",
  "uidHash",
  "iban",
  "bban",
  "enc",
  "displayNameEnc",
  "identityHash",
  "addressKey",
  "amountHash",
];

const normalised = (name: string) => name.replace(/[-_]/g, "").toLowerCase();
const SENSITIVE = new Set(SENSITIVE_FIELDS.map(normalised));

export function isSensitiveField(name: string): boolean {
  return SENSITIVE.has(normalised(name));
}

export const REDACTED = "[redacted]";

/** Header names blanked by pino's redaction at the top or one level down (`headers.cookie`). */
const REDACTED_HEADERS = [
  "authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
  "proxy-authorization",
];
const REDACT_PATHS = REDACTED_HEADERS.flatMap((name) => [`["${name}"]`, `*["${name}"]`]);

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

/**
 * An error's stack, scrubbed as its message is: the first line of a V8 stack
 * repeats the message, which may quote input; the frames name files and
 * functions only. The message line is replaced by the scrubbed message.
 */
function scrubbedStack(error: Error): string | undefined {
  if (typeof error.stack !== "string") return undefined;
  const head = `${error.name}: ${error.message}`;
  const frames = error.stack.startsWith(head)
    ? error.stack.slice(head.length)
    : error.stack.slice(error.stack.search(/\n\s+at |$/));
  return scrubText(`${error.name}: ${error.message}`) + scrubText(frames);
}

/**
 * `value` with sensitive fields replaced and shaped secrets scrubbed; an
 * error becomes its name, scrubbed message and cause, and with `stacks` its
 * scrubbed stack (lines at `error` level).
 */
export function redact(value: unknown, depth = 0, stacks = false): unknown {
  if (typeof value === "string") return scrubText(value);
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) {
    const stack = stacks ? scrubbedStack(value) : undefined;
    return {
      name: value.name,
      message: scrubText(value.message),
      ...(stack !== undefined && { stack }),
      cause: redact(value.cause, depth + 1, stacks),
    };
  }
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1, stacks));
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [
      key,
      isSensitiveField(key) ? REDACTED : redact(child, depth + 1, stacks),
    ]),
  );
}

const ERROR_LEVEL = 50;

/**
 * The active span's ids. Without tracing no context manager is registered,
 * so there is never an active span.
 */
function traceFields(): Record<string, string> {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
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
      },
      // Redaction where the line's level is known: at `error`, errors keep their scrubbed stack.
      hooks: {
        logMethod(args, method, level) {
          const [fields, ...rest] = args as unknown[];
          if (typeof fields !== "object" || fields === null) return method.apply(this, args);
          return method.apply(this, [
            redact(fields, 0, level >= ERROR_LEVEL) as Record<string, unknown>,
            ...rest,
          ] as Parameters<typeof method>);
        },
      },
      mixin: () => {
        const requestId = currentRequestId();
        return { ...(requestId && { requestId }), ...traceFields() };
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
