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

/** The challenge of a failed client authentication: HTTP Basic is the token endpoint's scheme. */
export const CLIENT_CHALLENGE = 'Basic realm="oauth"';

/**
 * RFC 6749 §5.2 error response. A 401 `invalid_client` carries
 * `WWW-Authenticate: Basic realm="oauth"` whichever way the client
 * authenticated, or if it did not (RFC 9110 §15.5.2: a 401 names the scheme
 * that would be accepted; docs/protocol.md#client-authentication).
 */
export function oauthErrorResponse(thrown: unknown): Response {
  const error = toOAuthError(thrown);
  if (error.code === "server_error") log.error("oauth.server_error", { error: error.cause });
  else if (error.status === 503 && error.cause)
    log.warn("oauth.database_unavailable", { error: error.cause });
  const response = withRetryAfter(oauthJson(toErrorBody(error), error.status), error);
  if (error.code === "invalid_client") response.headers.set("WWW-Authenticate", CLIENT_CHALLENGE);
  return response;
}

/** A 503 says when to come back. */
export function withRetryAfter(response: Response, error: OAuthError): Response {
  if (error.status === 503) response.headers.set("Retry-After", String(OUTAGE_RETRY_AFTER_SECONDS));
  return response;
}

/** The challenge to a request that carried no API key at all: no error code (RFC 6750 §3.1). */
export const API_KEY_CHALLENGE = 'Bearer realm="api"';

/**
 * RFC 6750 §3: errors of API-key-authenticated calls. A request that carried
 * no key (`missing`) is challenged without an error code, as RFC 6750 §3.1
 * asks; the body is the same either way.
 */
export function bearerErrorResponse(
  error: OAuthError,
  options: { missing?: boolean } = {},
): Response {
  const response = oauthJson(toErrorBody(error), error.status);
  response.headers.set(
    "WWW-Authenticate",
    options.missing ? API_KEY_CHALLENGE : `Bearer error="${error.code}"`,
  );
  return response;
}
