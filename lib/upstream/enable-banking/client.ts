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
 * when given, and turns every failure into an `UpstreamError` (errors.ts).
 * Bodies are JSON in Enable Banking's own snake_case; mapping them is
 * wire.ts's and mapping.ts's.
 */

export const DEFAULT_TIMEOUT_MS = 20_000;
/**
 * The largest answer read (after decompression). A page of transactions is
 * far smaller; a bigger answer is refused while it streams in, before it can
 * fill memory or hold the event loop in JSON.parse (docs/capacity.md).
 */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

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

  return {
    async request(request) {
      const response = await send(request, await signer.token());
      if (response.status === 401) signer.forget();
      if (response.status < 200 || response.status > 299) {
        // An oversized error page still has its status to go by.
        const body = response.body ?? "";
        throw toResponseError(request.route, { ...response, body }, options.now());
      }
      if (response.body === null) throw toOversizedError(request.route, maxBytes);
      if (response.body.trim() === "") return null;
      try {
        return JSON.parse(response.body) as unknown;
      } catch {
        throw toUnexpectedBodyError(request.route, "");
      }
    },
  };
}
