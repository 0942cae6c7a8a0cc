import { log } from "../log";
import { API_CSP } from "../http/security-headers";
import { OUTAGE_RETRY_AFTER_SECONDS } from "../db/faults";
import { type OAuthError, toErrorBody, toOAuthError } from "./errors";

/** Token responses are never cached (/docs/token). */
export const NO_STORE_HEADERS = { "Cache-Control": "no-store", Pragma: "no-cache" } as const;

export function oauthJson(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Security-Policy": API_CSP,
      ...NO_STORE_HEADERS,
    },
  });
}

/**
 * RFC 6749 §5.2 error response. Per docs/protocol.md#client-authentication, a 401 carries
 * `WWW-Authenticate: Basic realm="oauth"` when the client used Basic.
 */
export function oauthErrorResponse(thrown: unknown, options: { basic?: boolean } = {}): Response {
  const error = toOAuthError(thrown);
  if (error.code === "server_error") log.error("oauth.server_error", { error: error.cause });
  else if (error.status === 503 && error.cause)
    log.warn("oauth.database_unavailable", { error: error.cause });
  const response = withRetryAfter(oauthJson(toErrorBody(error), error.status), error);
  if (error.status === 401 && options.basic) {
    response.headers.set("WWW-Authenticate", 'Basic realm="oauth"');
  }
  return response;
}

/** A 503 says when to come back. */
export function withRetryAfter(response: Response, error: OAuthError): Response {
  if (error.status === 503) response.headers.set("Retry-After", String(OUTAGE_RETRY_AFTER_SECONDS));
  return response;
}

/** RFC 6750 §3: errors of API-key-authenticated calls. */
export function bearerErrorResponse(error: OAuthError): Response {
  const response = oauthJson(toErrorBody(error), error.status);
  response.headers.set("WWW-Authenticate", `Bearer error="${error.code}"`);
  return response;
}
