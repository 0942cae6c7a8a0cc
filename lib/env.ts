import { z } from "zod";
import { createPrivateKey, type KeyObject } from "node:crypto";

/**
 * The only reader of process.env. Every setting is parsed here once, with a
 * message naming the setting when it is missing or invalid.
 *
 * Two modes (docs/production.md). "production" is any production build
 * (NODE_ENV=production, which `npm start` and `next start` set) and any
 * public ISSUER; it refuses the development defaults: a real database,
 * secret, mail provider, rate-limit store and upstream must be configured,
 * and the demo is off unless asked for. "local" is development and tests on a
 * loopback ISSUER, and a production build started with LOCAL_ONLY=true, which
 * is accepted only with a loopback ISSUER.
 *
 * Two stages: `next build` checks only that each setting that is set is
 * well-formed (a build machine has no runtime secrets); starting the service
 * checks everything.
 */

export const DEVELOPMENT_SECRET = "bank-connect-development-secret-do-not-use-in-production";
const DEFAULT_ISSUER = "http://localhost:3000";

const emptyToUndefined = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

const optionalString = z.preprocess(emptyToUndefined, z.string().optional());
const optionalUrl = z.preprocess(emptyToUndefined, z.url().optional());
const boundedInteger = (min: number, max: number, fallback: number) =>
  z.preprocess(emptyToUndefined, z.coerce.number().int().min(min).max(max).default(fallback));
const booleanFlag = z.preprocess(
  emptyToUndefined,
  z
    .enum(["true", "false", "1", "0", "yes", "no"])
    .transform((v) => v === "true" || v === "1" || v === "yes")
    .optional(),
);

const issuerSchema = z.preprocess(
  emptyToUndefined,
  z
    .url({ protocol: /^https?$/, message: "must be an http(s) URL" })
    .default(DEFAULT_ISSUER)
    .transform((value) => value.replace(/\/+$/, ""))
    .refine((value) => {
      const url = new URL(value);
      return !url.search && !url.hash && !url.username && !url.password;
    }, "must not carry a query, fragment or credentials"),
);

const rawSchema = z.object({
  NODE_ENV: z.preprocess(
    emptyToUndefined,
    z.enum(["development", "production", "test"]).default("development"),
  ),
  LOCAL_ONLY: booleanFlag,
  ISSUER: issuerSchema,
  DISCOVERY_VENDOR_BLOCK: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/, "must be a lower-case identifier")
      .default("open_banking_io"),
  ),
  DOCUMENTATION_URL: optionalUrl,
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must be a postgresql:// connection string")
      .optional(),
  ),
  // Capacity (docs/capacity.md): connections per process, how long a request
  // waits for one, and the budget of bank syncs.
  DATABASE_POOL_SIZE: boundedInteger(1, 500, 10),
  DATABASE_POOL_TIMEOUT_MS: boundedInteger(100, 60_000, 5_000),
  SYNC_CONCURRENCY: boundedInteger(1, 100, 4),
  SYNC_DEADLINE_SECONDS: boundedInteger(1, 600, 45),
  SECRET_KEY: z.preprocess(
    emptyToUndefined,
    z.string().min(32, "must be at least 32 characters").default(DEVELOPMENT_SECRET),
  ),
  // During a rotation only (docs/operations.md): hashes made with it still verify.
  SECRET_KEY_PREVIOUS: z.preprocess(
    emptyToUndefined,
    z.string().min(32, "must be at least 32 characters").optional(),
  ),
  PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(65535).default(3000)),
  TRUSTED_PROXY_HOPS: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(0).max(10).default(0),
  ),
  REDIS_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^rediss?:\/\//, "must be a redis:// or rediss:// URL")
      .optional(),
  ),
  // The start of every key the service writes to Redis (docs/production.md); unset: derived
  // from ISSUER, so deployments sharing one Redis never count each other's requests.
  RATE_LIMIT_PREFIX: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
        "must be 1-64 letters, digits and . _ : - (starting with a letter or digit)",
      )
      .optional(),
  ),
  UPSTASH_REDIS_REST_URL: optionalUrl,
  UPSTASH_REDIS_REST_TOKEN: optionalString,
  RESEND_API_KEY: optionalString,
  // SMTP: one URL (smtp:// for STARTTLS, smtps:// for TLS from the start, credentials
  // percent-encoded) or the parts, never both.
  SMTP_URL: z.preprocess(
    emptyToUndefined,
    z.url({ protocol: /^smtps?$/, message: "must be an smtp:// or smtps:// URL" }).optional(),
  ),
  SMTP_HOST: optionalString,
  SMTP_PORT: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(65535).optional()),
  SMTP_USER: optionalString,
  SMTP_PASSWORD: optionalString,
  SMTP_SECURE: booleanFlag,
  SMTP_REQUIRE_TLS: booleanFlag,
  MAIL_FROM: z.preprocess(
    emptyToUndefined,
    z.string().default("Bank Connect <no-reply@localhost>"),
  ),
  UPSTREAM: z.preprocess(emptyToUndefined, z.enum(["sandbox", "enablebanking"]).optional()),
  ENABLE_BANKING_API_URL: z.preprocess(
    emptyToUndefined,
    z.url().default("https://api.enablebanking.com"),
  ),
  ENABLE_BANKING_APPLICATION_ID: optionalString,
  ENABLE_BANKING_PRIVATE_KEY: optionalString,
  RECIPIENT_KEY_REQUIRED: booleanFlag,
  DEMO_ENABLED: booleanFlag,
  PARTNER_SELF_SIGNUP: booleanFlag,
  DEMO_PARTNER_PRIVATE_KEY: optionalString,
  DATA_DIR: z.preprocess(emptyToUndefined, z.string().default(".data")),
  // Observability (docs/observability.md): the bearer token of GET /metrics
  // (unset: no metrics endpoint) and where traces go (unset: no tracing).
  METRICS_TOKEN: z.preprocess(
    emptyToUndefined,
    z.string().min(16, "must be at least 16 characters").optional(),
  ),
  // The banks (ASPSP names, comma-separated) the upstream metrics name; every other is "other".
  METRICS_BANKS: optionalString,
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_SERVICE_NAME: z.preprocess(emptyToUndefined, z.string().default("bank-connect")),
  LOG_LEVEL: z.preprocess(
    emptyToUndefined,
    z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  ),
});

export type Env = ReturnType<typeof finishEnv>;

/** Every setting the service reads (`.env.example` lists each one). */
export const SETTING_NAMES = Object.keys(rawSchema.shape);

/**
 * A loopback URL: its host is `localhost`, `[::1]` or an IPv4 literal in
 * 127.0.0.0/8. The URL parser writes every IPv4 literal as four decimal
 * numbers (`127.1` and `0x7f000001` become `127.0.0.1`), so a host of that
 * form is an address, never a name: `127.evil.example` is a name anyone can
 * point anywhere, and so are `*.localhost` names outside a browser.
 */
export function isLoopbackUrl(value: string): boolean {
  const host = new URL(value).hostname.toLowerCase();
  return host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

/** 32 random hex digits have fewer only about once in five billion keys. */
const MIN_DISTINCT_SECRET_CHARACTERS = 7;

/**
 * Why a secret is obviously guessable, or null: one character or a short
 * pattern repeated, a run through a sequence (`abcdef…`, `0123…`), or too few
 * different characters. Random keys (`openssl rand -base64 48`, `-hex 32`)
 * never come near these. The reason never quotes the secret.
 */
export function weakSecretReason(secret: string): string | null {
  const length = secret.length;
  for (let period = 1; period <= length / 2; period += 1) {
    let repeats = true;
    for (let index = period; index < length && repeats; index += 1) {
      repeats = secret[index] === secret[index - period];
    }
    if (repeats)
      return period === 1
        ? "it is one character repeated"
        : `it repeats a pattern of ${period} characters`;
  }
  const distinct = new Set(secret).size;
  if (distinct < MIN_DISTINCT_SECRET_CHARACTERS) {
    return `it has only ${distinct} different characters`;
  }
  const steps = new Map<number, number>();
  for (let index = 1; index < length; index += 1) {
    const step = secret.charCodeAt(index) - secret.charCodeAt(index - 1);
    steps.set(step, (steps.get(step) ?? 0) + 1);
  }
  if (Math.max(...steps.values()) * 2 >= length - 1) return "it runs through a sequence";
  return null;
}

type RawEnv = z.infer<typeof rawSchema>;

/**
 * Production unless this is a development or test process, or a production
 * build explicitly made local-only, on a loopback issuer.
 */
function modeOf(raw: RawEnv): "local" | "production" {
  if (!isLoopbackUrl(raw.ISSUER)) return "production";
  return raw.NODE_ENV !== "production" || raw.LOCAL_ONLY === true ? "local" : "production";
}

export interface SmtpSettings {
  host: string;
  port: number;
  /** TLS from the first byte (smtps, usually port 465); otherwise STARTTLS. */
  secure: boolean;
  /** Refuse to send when the server does not offer STARTTLS (ignored when secure). */
  requireTls: boolean;
  auth?: { user: string; pass: string };
}

/**
 * The SMTP relay, from SMTP_URL or the SMTP_HOST parts. Production requires
 * STARTTLS unless told otherwise: sign-in links and codes must not cross a
 * network in clear text.
 */
function smtpSettings(raw: RawEnv, mode: "local" | "production"): SmtpSettings | undefined {
  const url = raw.SMTP_URL ? new URL(raw.SMTP_URL) : undefined;
  const host = url ? url.hostname.replace(/^\[(.*)\]$/, "$1") : raw.SMTP_HOST;
  if (!host) return undefined;
  const secure = url ? url.protocol === "smtps:" : (raw.SMTP_SECURE ?? false);
  const port = url?.port ? Number(url.port) : (raw.SMTP_PORT ?? (secure ? 465 : 587));
  const user = url ? decodeURIComponent(url.username) : raw.SMTP_USER;
  const pass = url ? decodeURIComponent(url.password) : raw.SMTP_PASSWORD;
  return {
    host,
    port,
    secure,
    requireTls: raw.SMTP_REQUIRE_TLS ?? mode === "production",
    auth: user ? { user, pass: pass ?? "" } : undefined,
  };
}

function finishEnv(raw: RawEnv) {
  const mode = modeOf(raw);
  return {
    nodeEnv: raw.NODE_ENV,
    mode,
    localOnly: raw.LOCAL_ONLY ?? false,
    issuer: raw.ISSUER,
    vendorBlock: raw.DISCOVERY_VENDOR_BLOCK,
    documentationUrl: raw.DOCUMENTATION_URL ?? `${raw.ISSUER}/docs`,
    databaseUrl: raw.DATABASE_URL,
    database: { poolSize: raw.DATABASE_POOL_SIZE, poolTimeoutMs: raw.DATABASE_POOL_TIMEOUT_MS },
    sync: { concurrency: raw.SYNC_CONCURRENCY, deadlineSeconds: raw.SYNC_DEADLINE_SECONDS },
    secretKey: raw.SECRET_KEY,
    previousSecretKey: raw.SECRET_KEY_PREVIOUS,
    port: raw.PORT,
    trustedProxyHops: raw.TRUSTED_PROXY_HOPS,
    redisUrl: raw.REDIS_URL,
    /** Unset: derived from the issuer (lib/ratelimit/limiter.ts). */
    rateLimitPrefix: raw.RATE_LIMIT_PREFIX,
    upstash:
      raw.UPSTASH_REDIS_REST_URL && raw.UPSTASH_REDIS_REST_TOKEN
        ? { url: raw.UPSTASH_REDIS_REST_URL, token: raw.UPSTASH_REDIS_REST_TOKEN }
        : undefined,
    resendApiKey: raw.RESEND_API_KEY,
    smtp: smtpSettings(raw, mode),
    mailFrom: raw.MAIL_FROM,
    upstream: raw.UPSTREAM ?? ("sandbox" as const),
    enableBanking: {
      apiUrl: raw.ENABLE_BANKING_API_URL.replace(/\/+$/, ""),
      applicationId: raw.ENABLE_BANKING_APPLICATION_ID,
      privateKey: raw.ENABLE_BANKING_PRIVATE_KEY,
    },
    recipientKeyRequired: raw.RECIPIENT_KEY_REQUIRED ?? false,
    demoEnabled: raw.DEMO_ENABLED ?? mode === "local",
    // A signed-in person who owns no partner may create one from the dashboard
    // (docs/partner-signup.md); in production the operator decides who is a partner.
    partnerSelfSignup: raw.PARTNER_SELF_SIGNUP ?? mode === "local",
    demoPartnerPrivateKey: raw.DEMO_PARTNER_PRIVATE_KEY,
    logLevel: raw.LOG_LEVEL,
    metricsToken: raw.METRICS_TOKEN,
    metricsBanks: (raw.METRICS_BANKS ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
    tracing: raw.OTEL_EXPORTER_OTLP_ENDPOINT
      ? {
          endpoint: raw.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, ""),
          serviceName: raw.OTEL_SERVICE_NAME,
        }
      : undefined,
    dataDir: raw.DATA_DIR,
  };
}

/** A PEM pasted into a one-line setting often carries `\n` escapes instead of line breaks. */
const toPem = (value: string) => value.replace(/\\n/g, "\n").trim();

export const APPLICATION_KEY_PROBLEM =
  "ENABLE_BANKING_PRIVATE_KEY is not an RSA private key in PEM form (PKCS#8 BEGIN PRIVATE KEY or PKCS#1 BEGIN RSA PRIVATE KEY)";

/**
 * The application's RSA private key as operators have it: PKCS#8
 * (`-----BEGIN PRIVATE KEY-----`, OpenSSL 3's `openssl genrsa`) or PKCS#1
 * (`-----BEGIN RSA PRIVATE KEY-----`, `openssl genrsa` on OpenSSL 1.1 and
 * LibreSSL), with real line breaks or `\n` escapes. An encrypted key, a
 * public key, a certificate or a non-RSA key is refused with
 * {@link APPLICATION_KEY_PROBLEM}; the key's content never appears in it.
 */
export function parseApplicationKey(value: string): KeyObject {
  const pem = toPem(value);
  if (!/^-----BEGIN (RSA )?PRIVATE KEY-----/.test(pem))
    throw new TypeError(APPLICATION_KEY_PROBLEM);
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: "pem" });
  } catch {
    throw new TypeError(APPLICATION_KEY_PROBLEM);
  }
  if (key.asymmetricKeyType !== "rsa") throw new TypeError(APPLICATION_KEY_PROBLEM);
  return key;
}

/** Cross-setting rules; each problem names the setting(s) to fix. */
function checkEnv(raw: RawEnv, env: Env): string[] {
  const problems: string[] = [];
  if ((raw.UPSTASH_REDIS_REST_URL === undefined) !== (raw.UPSTASH_REDIS_REST_TOKEN === undefined)) {
    problems.push("UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN must be set together");
  }
  if (env.upstream === "enablebanking") {
    if (!env.enableBanking.applicationId) {
      problems.push("ENABLE_BANKING_APPLICATION_ID is required when UPSTREAM=enablebanking");
    }
    if (!env.enableBanking.privateKey) {
      problems.push("ENABLE_BANKING_PRIVATE_KEY is required when UPSTREAM=enablebanking");
    } else {
      // Checked at start, not on the first sync: a key Enable Banking cannot read fails every call.
      try {
        parseApplicationKey(env.enableBanking.privateKey);
      } catch {
        problems.push(APPLICATION_KEY_PROBLEM);
      }
    }
  }
  if (raw.SECRET_KEY_PREVIOUS !== undefined && raw.SECRET_KEY_PREVIOUS === raw.SECRET_KEY) {
    problems.push("SECRET_KEY_PREVIOUS must differ from SECRET_KEY (it is the key being retired)");
  }
  if (raw.SMTP_URL && (raw.SMTP_HOST || raw.SMTP_PORT || raw.SMTP_USER || raw.SMTP_PASSWORD)) {
    problems.push(
      "SMTP_URL and SMTP_HOST/SMTP_PORT/SMTP_USER/SMTP_PASSWORD are alternatives: set one",
    );
  }
  if (!raw.SMTP_URL && !raw.SMTP_HOST && (raw.SMTP_PORT || raw.SMTP_USER || raw.SMTP_PASSWORD)) {
    problems.push("SMTP_HOST is required when SMTP_PORT, SMTP_USER or SMTP_PASSWORD is set");
  }
  if (env.resendApiKey && env.smtp) {
    problems.push(
      "RESEND_API_KEY and SMTP_URL/SMTP_HOST are alternatives: choose one mail provider",
    );
  }
  if (env.localOnly && !isLoopbackUrl(env.issuer)) {
    problems.push(
      `LOCAL_ONLY=true is accepted only with a loopback ISSUER (such as ${DEFAULT_ISSUER}); ${env.issuer} is not one`,
    );
  }
  return problems;
}

/**
 * Production refuses every development default; each problem names the
 * setting to fix and why its default is unfit (docs/production.md).
 */
function productionProblems(raw: RawEnv, env: Env): string[] {
  if (env.mode !== "production") return [];
  const problems: string[] = [];
  if (isLoopbackUrl(env.issuer)) {
    problems.push(
      `ISSUER must be the service's public https:// address in production (${env.issuer} is a loopback address)`,
    );
  } else if (!env.issuer.startsWith("https://")) {
    problems.push("ISSUER must be an https:// URL in production");
  }
  if (raw.SECRET_KEY === DEVELOPMENT_SECRET) {
    problems.push(
      "SECRET_KEY must be set to a random value of at least 32 characters in production (the development value is published in the source)",
    );
  } else {
    const weak = weakSecretReason(raw.SECRET_KEY);
    if (weak) {
      problems.push(
        `SECRET_KEY is too easy to guess for production (${weak}): use at least 32 random characters, such as the output of \`openssl rand -base64 48\``,
      );
    }
  }
  if (raw.SECRET_KEY_PREVIOUS === DEVELOPMENT_SECRET) {
    problems.push(
      "SECRET_KEY_PREVIOUS must not be the development value in production (hashes made with a published key must not verify)",
    );
  }
  if (!env.databaseUrl) {
    problems.push(
      "DATABASE_URL is required in production (the embedded PostgreSQL is for development)",
    );
  }
  if (!env.redisUrl && !env.upstash) {
    problems.push(
      "REDIS_URL or UPSTASH_REDIS_REST_URL/TOKEN is required in production (in-memory rate limits are per process and start over on every restart)",
    );
  }
  if (!env.resendApiKey && !env.smtp) {
    problems.push(
      "RESEND_API_KEY or SMTP_URL/SMTP_HOST is required in production (the local outbox keeps sign-in links and codes in the database instead of sending them)",
    );
  }
  if (!raw.UPSTREAM) {
    problems.push(
      "UPSTREAM must be chosen explicitly in production (enablebanking, or sandbox for a public test instance)",
    );
  }
  return problems;
}

/** Why production mode applies, and the way out when there is one. */
function productionAdvice(raw: RawEnv): string[] {
  if (!isLoopbackUrl(raw.ISSUER)) {
    return [
      `Production mode applies because ISSUER (${raw.ISSUER}) is a public address.`,
      "See docs/production.md.",
    ];
  }
  return [
    "Production mode applies because this is a production build (NODE_ENV=production, set by `npm start` and `next start`).",
    `To run this build on this machine only, with the development defaults, set LOCAL_ONLY=true (accepted only with a loopback ISSUER such as ${DEFAULT_ISSUER}).`,
    "See docs/production.md.",
  ];
}

export class EnvError extends Error {
  constructor(
    readonly problems: string[],
    advice: string[] = [],
  ) {
    super([`Invalid configuration:`, ...problems.map((p) => `  - ${p}`), ...advice].join("\n"));
    this.name = "EnvError";
  }
}

/**
 * "build": `next build`, which checks each setting's form only, so a build
 * machine needs no runtime secrets. "start": everything, before serving.
 */
export type EnvStage = "build" | "start";

/** Next's own marker for the processes of `next build` (its page-data workers too). */
const NEXT_BUILD_PHASE = "phase-production-build";

const stageOf = (source: Record<string, string | undefined>): EnvStage =>
  stageOfNextPhase(source.NEXT_PHASE ?? "");

/** Parses a settings map; throws EnvError naming every bad setting. */
export function parseEnv(
  source: Record<string, string | undefined>,
  stage: EnvStage = stageOf(source),
): Env {
  const result = rawSchema.safeParse(source);
  if (!result.success) {
    throw new EnvError(
      result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`),
    );
  }
  const env = finishEnv(result.data);
  if (stage === "build") return env;
  const problems = checkEnv(result.data, env);
  const production = productionProblems(result.data, env);
  if (problems.length + production.length > 0) {
    throw new EnvError(
      [...problems, ...production],
      production.length > 0 ? productionAdvice(result.data) : [],
    );
  }
  return env;
}

let cached: Env | undefined;

/** The validated settings of this process. */
export function getEnv(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** The stage a Next.js phase (next.config.ts receives it) checks settings at. */
export const stageOfNextPhase = (phase: string): EnvStage =>
  phase === NEXT_BUILD_PHASE ? "build" : "start";

/** This process's settings checked for `stage`, whatever NEXT_PHASE says (the launcher: "start"). */
export function checkSettings(stage: EnvStage): Env {
  return parseEnv(process.env, stage);
}

/** The database URL, or a clear error when the process was started without one. */
export function requireDatabaseUrl(): string {
  const url = getEnv().databaseUrl;
  if (!url) {
    throw new EnvError([
      "DATABASE_URL is not set (start the service with `npm run dev`, or `LOCAL_ONLY=true npm start`, to get an embedded PostgreSQL)",
    ]);
  }
  return url;
}

/**
 * Tooling only (launcher, test setup): point this process, and the children it
 * starts, at a database chosen at run time (the embedded PostgreSQL).
 */
export function setDatabaseUrl(url: string): void {
  process.env.DATABASE_URL = url;
  cached = undefined;
}

/** Test tooling only: hand a setting to the worker processes it starts. */
export function setSetting(name: string, value: string): void {
  process.env[name] = value;
  cached = undefined;
}

/** The environment for a child process: this one's plus overrides (undefined removes). */
export function childEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...overrides };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return env;
}

/** Raw read for the tooling scripts that pass settings through unchanged. */
export function rawSetting(name: string): string | undefined {
  return process.env[name];
}
