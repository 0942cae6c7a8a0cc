import { toResponseError, toUnexpectedBodyError, toUnreachableError } from "./errors";
import { createTokenSigner } from "./jwt";

/**
 * The HTTP side of the Enable Banking connector: signs every request
 * (jwt.ts), bounds it in time, forwards the user's PSU headers when given, and
 * turns every failure into an `UpstreamError` (errors.ts). Bodies are JSON in
 * Enable Banking's own snake_case; mapping them is wire.ts's and mapping.ts's.
 */

export const DEFAULT_TIMEOUT_MS = 20_000;

export interface EnableBankingClientOptions {
  /** e.g. `https://api.enablebanking.com` (a trailing slash is fine). */
  apiUrl: string;
  applicationId: string;
  /** PKCS#8 PEM of the key registered with the application. */
  privateKey: string;
  now: () => Date;
  timeoutMs?: number;
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

export function createEnableBankingClient(
  options: EnableBankingClientOptions,
): EnableBankingClient {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
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
    try {
      const response = await fetch(toUrl(options.apiUrl, request.path, request.query), {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        redirect: "error",
        signal: AbortSignal.timeout(timeoutMs),
      });
      // The timeout covers the body too: reading it aborts with the same signal.
      return { status: response.status, headers: response.headers, body: await response.text() };
    } catch (cause) {
      throw toUnreachableError(request.route, cause, timeoutMs);
    }
  }

  return {
    async request(request) {
      const response = await send(request, await signer.token());
      if (response.status === 401) signer.forget();
      if (response.status < 200 || response.status > 299) {
        throw toResponseError(request.route, response, options.now());
      }
      if (response.body.trim() === "") return null;
      try {
        return JSON.parse(response.body) as unknown;
      } catch {
        throw toUnexpectedBodyError(request.route, "");
      }
    },
  };
}
