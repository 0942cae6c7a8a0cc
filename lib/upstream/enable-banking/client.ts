import pRetry from "p-retry";
import { setTimeout as sleep } from "node:timers/promises";
import { log } from "../../log";
import { timeLeftMs } from "../deadline";
import { UpstreamError } from "../types";
import {
  toOversizedError,
  toResponseError,
  toUnexpectedBodyError,
  toUnreachableError,
} from "./errors";
import { createTokenSigner } from "./jwt";

/**
 * The HTTP side of the Enable Banking connector: signs every request
 * (jwt.ts), bounds it in time and in size, forwards the user's PSU headers
 * when given, retries what is safe to retry (RETRY_POLICY) and turns every
 * failure into an `UpstreamError` (errors.ts). Bodies are JSON in Enable
 * Banking's own snake_case; mapping them is wire.ts's and mapping.ts's.
 */

export const DEFAULT_TIMEOUT_MS = 20_000;
/**
 * The largest answer read (after decompression). A page of transactions is
 * far smaller; a bigger answer is refused while it streams in, before it can
 * fill memory or hold the event loop in JSON.parse (docs/capacity.md).
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * When a failed request is sent again (docs/sync-failures.md#retries). Only
 * requests that change nothing when repeated: reads, and ending a session
 * (ending it twice leaves it ended). `POST /auth` would start a second
 * consent and `POST /sessions` spends a single-use code, so neither is ever
 * sent twice. A retry follows an answer that says "not now" (429, 5xx) or
 * no answer at all (our timeout, a refused or reset connection); any other
 * 4xx would be refused again. Waits grow from `firstDelayMs` by `factor`,
 * each times a random 1–2 so that many clients refused together do not come
 * back together, at most `maxDelayMs`; a `Retry-After` from the bank
 * (RFC 9110 §10.2.3) is waited for first. A 429 without `Retry-After` is not
 * retried: Enable Banking answers 429 when the bank's own limit of reads is
 * spent (`ASPSP_RATE_LIMIT_EXCEEDED`, often the four unattended reads a day
 * PSD2 allows), which a few seconds do not restore.
 */
export const RETRY_POLICY = {
  attempts: 3,
  methods: ["GET", "DELETE"],
  statuses: [429, 500, 502, 503, 504],
  firstDelayMs: 250,
  factor: 2,
  maxDelayMs: 2_000,
  /** The longest `Retry-After` waited for, with or without a deadline. */
  maxRetryAfterMs: 10_000,
} as const satisfies {
  attempts: number;
  methods: readonly EnableBankingRequest["method"][];
  statuses: readonly number[];
  firstDelayMs: number;
  factor: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
};

/** A failure worth another attempt: the error it maps to, and the wait the bank asked for. */
class RetryableFailure extends Error {
  constructor(
    readonly failure: UpstreamError,
    readonly status: number | null,
  ) {
    super(failure.message);
    this.name = "RetryableFailure";
  }
}

/** The longest backoff p-retry may wait after attempt `attempt` (its random factor is 1–2). */
function longestBackoffMs(attempt: number): number {
  const { firstDelayMs, factor, maxDelayMs } = RETRY_POLICY;
  return Math.min(maxDelayMs, 2 * firstDelayMs * factor ** (attempt - 1));
}

/**
 * What to wait for before attempt `attempt + 1`, beyond the backoff: the
 * bank's `Retry-After`, or 0; null when no retry should follow.
 */
function retryAfterWaitMs(failed: RetryableFailure, attempt: number, timeLeft: number) {
  const seconds = failed.failure.retryAfterSeconds;
  if (failed.status === 429 && seconds === null) return null;
  const waitMs = (seconds ?? 0) * 1000;
  if (waitMs > RETRY_POLICY.maxRetryAfterMs) return null;
  // Never sleep past the deadline: a wait that would end after it gives up now.
  return waitMs + longestBackoffMs(attempt) < timeLeft ? waitMs : null;
}

export interface EnableBankingClientOptions {
  /** e.g. `https://api.enablebanking.com` (a trailing slash is fine). */
  apiUrl: string;
  applicationId: string;
  /** PKCS#8 PEM of the key registered with the application. */
  privateKey: string;
  now: () => Date;
  timeoutMs?: number;
  /** Default MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
  jwtLifetimeSeconds?: number;
}

export interface EnableBankingRequest {
  method: "GET" | "POST" | "DELETE";
  /** Names the endpoint in messages, with ids left out: `GET /accounts/{uid}/balances`. */
  route: string;
  /** The path with its ids, percent-encoded by the caller. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  psuHeaders?: Record<string, string>;
  /** Aborts the request early (a sync's deadline); the timeout applies regardless. */
  signal?: AbortSignal;
}

export interface EnableBankingClient {
  /** The answer's parsed JSON (null for an empty body). */
  request(request: EnableBankingRequest): Promise<unknown>;
}

/**
 * Enable Banking's PSU headers all start with `Psu-` (`Psu-Ip-Address`,
 * `Psu-User-Agent`, …); nothing else is forwarded, so a caller can never
 * replace `Authorization`. Blank values are left out.
 */
export function toPsuHeaders(given: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given ?? {})) {
    if (/^psu-[a-z0-9-]+$/i.test(name) && value.trim() !== "") headers[name] = value;
  }
  return headers;
}

function toUrl(apiUrl: string, path: string, query: EnableBankingRequest["query"]): URL {
  const url = new URL(`${apiUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url;
}

/**
 * The body as text, or null once it passes `maxBytes` (the rest is not read:
 * the connection is dropped).
 */
async function readCapped(response: Response, maxBytes: number): Promise<string | null> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes || !response.body) {
    await response.body?.cancel();
    return declared > maxBytes ? null : "";
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function createEnableBankingClient(
  options: EnableBankingClientOptions,
): EnableBankingClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  const retriedMethods = new Set<string>(RETRY_POLICY.methods);
  const retriedStatuses = new Set<number>(RETRY_POLICY.statuses);
  const signer = createTokenSigner({
    applicationId: options.applicationId,
    privateKey: options.privateKey,
    now: options.now,
    lifetimeSeconds: options.jwtLifetimeSeconds,
  });

  async function send(request: EnableBankingRequest, token: string) {
    const headers: Record<string, string> = {
      ...toPsuHeaders(request.psuHeaders),
      accept: "application/json",
      authorization: `Bearer ${token}`,
    };
    if (request.body !== undefined) headers["content-type"] = "application/json";
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const response = await fetch(toUrl(options.apiUrl, request.path, request.query), {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        redirect: "error",
        signal: request.signal ? AbortSignal.any([timeout, request.signal]) : timeout,
      });
      // The timeout covers the body too: reading it aborts with the same signal.
      const body = await readCapped(response, maxBytes);
      return { status: response.status, headers: response.headers, body };
    } catch (cause) {
      // The caller gave up (its deadline passed): its reason, not an unreachable bank.
      if (request.signal?.aborted) throw request.signal.reason;
      throw toUnreachableError(request.route, cause, timeoutMs);
    }
  }

  /** One attempt: the answer's JSON, or its failure (a RetryableFailure when another may help). */
  async function attempt(request: EnableBankingRequest): Promise<unknown> {
    let response: Awaited<ReturnType<typeof send>>;
    try {
      response = await send(request, await signer.token());
    } catch (error) {
      // No answer at all. The caller giving up (its deadline) is its own error, never retried.
      if (error instanceof UpstreamError) throw new RetryableFailure(error, null);
      throw error;
    }
    if (response.status === 401) signer.forget();
    if (response.status < 200 || response.status > 299) {
      // An oversized error page still has its status to go by.
      const body = response.body ?? "";
      const failure = toResponseError(request.route, { ...response, body }, options.now());
      throw retriedStatuses.has(response.status)
        ? new RetryableFailure(failure, response.status)
        : failure;
    }
    if (response.body === null) throw toOversizedError(request.route, maxBytes);
    if (response.body.trim() === "") return null;
    try {
      return JSON.parse(response.body) as unknown;
    } catch {
      throw toUnexpectedBodyError(request.route, "");
    }
  }

  /** Waits `ms`, or until the caller gives up (then with the caller's reason). */
  async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await sleep(ms, undefined, { signal });
    } catch (error) {
      throw signal?.aborted ? signal.reason : error;
    }
  }

  return {
    async request(request) {
      const retried = retriedMethods.has(request.method);
      try {
        return await pRetry(() => attempt(request), {
          retries: retried ? RETRY_POLICY.attempts - 1 : 0,
          minTimeout: RETRY_POLICY.firstDelayMs,
          factor: RETRY_POLICY.factor,
          maxTimeout: RETRY_POLICY.maxDelayMs,
          randomize: true,
          // No backoff runs past the deadline; with none known, the attempts bound the time.
          maxRetryTime: timeLeftMs(request.signal),
          signal: request.signal,
          shouldRetry: async ({ error, attemptNumber }) => {
            if (!(error instanceof RetryableFailure)) return false;
            const waitMs = retryAfterWaitMs(error, attemptNumber, timeLeftMs(request.signal));
            if (waitMs === null) return false;
            // The route names the endpoint without ids: nothing of the bank's data.
            log.info("upstream.retry", {
              route: request.route,
              attempt: attemptNumber + 1,
              after: error.status ?? "no answer",
              retryAfterMs: waitMs,
            });
            if (waitMs > 0) await wait(waitMs, request.signal);
            return true;
          },
        });
      } catch (error) {
        throw error instanceof RetryableFailure ? error.failure : error;
      }
    },
  };
}
