import { isDatabaseUnavailable } from "../db/faults";

/**
 * OAuth errors, keyed by their RFC code (docs/architecture.md#typed-errors). The HTTP status
 * comes from one table; internals ride in `cause` and are logged, never
 * serialized. An unreachable database becomes `temporarily_unavailable` (503);
 * anything else unexpected becomes `server_error`.
 */

export const OAUTH_ERROR_STATUS = {
  invalid_request: 400,
  // RFC 6749 §5.2: 401 for a failed client authentication.
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  access_denied: 403,
  // RFC 6750 §3.1.
  invalid_token: 401,
  insufficient_scope: 403,
  temporarily_unavailable: 503,
  server_error: 500,
} as const satisfies Record<string, number>;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_STATUS;

export class OAuthError extends Error {
  readonly status: number;

  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    options?: { cause?: unknown },
  ) {
    super(`${code}: ${description}`, options);
    this.name = "OAuthError";
    this.status = OAUTH_ERROR_STATUS[code];
  }
}

/** RFC 6749 §5.2 body. Descriptions are ASCII, written for developers. */
export function toErrorBody(error: OAuthError): { error: string; error_description: string } {
  return { error: error.code, error_description: error.description };
}

/** Turns anything thrown into an OAuthError; the unexpected become server_error. */
export function toOAuthError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  if (isDatabaseUnavailable(error)) {
    return new OAuthError(
      "temporarily_unavailable",
      "the service is briefly unavailable; try again in a few seconds",
      { cause: error },
    );
  }
  return new OAuthError("server_error", "the server could not complete the request", {
    cause: error,
  });
}
