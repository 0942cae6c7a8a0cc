import { UpstreamError, type UpstreamFailureReason } from "../types";

/**
 * How an Enable Banking failure maps to a sync reason (docs/architecture.md#upstream-aggregators,
 * /docs/sync), as one table (docs/architecture.md#policies-as-data). Enable Banking's error body is
 * `{"code": <status>, "message": "…", "error": "<ERROR_CODE>", "detail": …}`;
 * a known `error` wins over the HTTP status, because Enable Banking answers
 * several of them (a bank's rate limit, an expired session) with a plain 4xx.
 * Only the code is kept: `message` and `detail` may echo bank data.
 */
export const ENABLE_BANKING_FAILURES = {
  // Every code of the `ErrorCode` list in Enable Banking's API reference. A code not listed
  // here falls back to the status below (a 4xx is `bank_error`), and the code is kept as
  // `bankErrorCode` either way.
  byCode: {
    ASPSP_RATE_LIMIT_EXCEEDED: "rate_limited",
    // The consent ended at the bank, or was never completed: only a new one helps.
    EXPIRED_SESSION: "reconnect_needed",
    CLOSED_SESSION: "reconnect_needed",
    SESSION_DOES_NOT_EXIST: "reconnect_needed",
    WRONG_SESSION_STATUS: "reconnect_needed",
    ASPSP_PSU_ACTION_REQUIRED: "reconnect_needed",
    // The consent no longer reaches the account (or any account): a new consent may.
    ASPSP_ACCOUNT_NOT_ACCESSIBLE: "reconnect_needed",
    NO_ACCOUNTS_ADDED: "reconnect_needed",
    // The user withdrew the consent at the bank.
    REVOKED_SESSION: "consent_withdrawn",
    // Some of the bank's `required_psu_headers` (GET /aspsps) were not sent. The sync tells a read
    // with the holder present (psu_headers_missing, naming them) from a background read at a bank
    // that shares data only with the holder present (psu_present_required), /docs/sync.
    PSU_HEADER_NOT_PROVIDED: "psu_headers_missing",
    PSU_HEADER_INVALID: "psu_present_required",
    ASPSP_ERROR: "bank_error",
    ASPSP_TIMEOUT: "transient",
    // Enable Banking refused the application itself (its JWT, its key, its IP allow-list,
    // its registered redirect or webhook URLs): no request succeeds until the operator acts.
    UNAUTHORIZED_ACCESS: "partner_app_inactive",
    ACCESS_DENIED: "partner_app_inactive",
    AUTHORIZATION_NOT_PROVIDED: "partner_app_inactive",
    UNAUTHORIZED_IP: "partner_app_inactive",
    WRONG_CREDENTIALS_PROVIDED: "partner_app_inactive",
    INVALID_HOST: "partner_app_inactive",
    REDIRECT_URI_NOT_ALLOWED: "partner_app_inactive",
    WEBHOOK_URI_NOT_ALLOWED: "partner_app_inactive",
    // The request or the consent step was refused as asked: retrying it unchanged fails again.
    ACCOUNT_DOES_NOT_EXIST: "bank_error",
    INVALID_ACCOUNT_ID: "bank_error",
    TRANSACTION_DOES_NOT_EXIST: "bank_error",
    WRONG_ASPSP_PROVIDED: "bank_error",
    WRONG_AUTHORIZATION_CODE: "bank_error",
    EXPIRED_AUTHORIZATION_CODE: "bank_error",
    ALREADY_AUTHORIZED: "bank_error",
    WRONG_REQUEST_PARAMETERS: "bank_error",
    WRONG_CONTINUATION_KEY: "bank_error",
    WRONG_DATE_INTERVAL: "bank_error",
    DATE_FROM_IN_FUTURE: "bank_error",
    DATE_TO_WITHOUT_DATE_FROM: "bank_error",
    WRONG_TRANSACTIONS_PERIOD: "bank_error",
    // Payment codes: the service initiates no payments, so these only mean a wrong request.
    ASPSP_PAYMENT_NOT_ACCESSIBLE: "bank_error",
    INVALID_PAYMENT: "bank_error",
    PAYMENT_LIMIT_EXCEEDED: "bank_error",
    PAYMENT_NOT_AUTHORIZED: "bank_error",
    PAYMENT_NOT_FINALIZED: "bank_error",
    PAYMENT_NOT_FOUND: "bank_error",
    PAYMENT_SUBMISSION_NOT_DEFERRED: "bank_error",
    PAYMENT_SUBMISSION_NOT_SUPPORTED: "bank_error",
    UNTRUSTED_PAYMENT_PARTY: "bank_error",
  },
  /** When the body names no code of the table. */
  byStatus: {
    // Enable Banking refused our JWT: the application is not (or no longer) allowed in.
    401: "partner_app_inactive",
    403: "partner_app_inactive",
    408: "transient",
    429: "rate_limited",
  },
  otherClientError: "bank_error",
  serverError: "transient",
  /** No answer at all: a refused connection, a reset, our timeout. */
  unreachable: "transient",
  /** A 2xx whose body is not the documented JSON. */
  unexpectedBody: "bank_error",
  /** A 2xx larger than the connector reads (client.ts MAX_RESPONSE_BYTES). */
  oversizedBody: "bank_error",
} as const satisfies {
  byCode: Record<string, UpstreamFailureReason>;
  byStatus: Record<number, UpstreamFailureReason>;
  otherClientError: UpstreamFailureReason;
  serverError: UpstreamFailureReason;
  unreachable: UpstreamFailureReason;
  unexpectedBody: UpstreamFailureReason;
  oversizedBody: UpstreamFailureReason;
};

/** An Enable Banking error code is an upper-case identifier, safe to show (/docs/sync). */
const ERROR_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

export function parseErrorCode(body: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null || !("error" in parsed)) return null;
  const code = parsed.error;
  return typeof code === "string" && ERROR_CODE.test(code) ? code : null;
}

/**
 * RFC 9110 §10.2.3: `Retry-After` is either whole seconds or an HTTP date;
 * the answer is in seconds from `now`, never negative, null when absent or
 * unreadable.
 */
export function parseRetryAfter(value: string | null, now: Date): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (!/[a-z]/i.test(trimmed) || Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}

function reasonOf(status: number, code: string | null): UpstreamFailureReason {
  const { byCode, byStatus } = ENABLE_BANKING_FAILURES;
  if (code !== null && Object.hasOwn(byCode, code)) return byCode[code as keyof typeof byCode];
  if (Object.hasOwn(byStatus, status)) return byStatus[status as keyof typeof byStatus];
  return status >= 500
    ? ENABLE_BANKING_FAILURES.serverError
    : ENABLE_BANKING_FAILURES.otherClientError;
}

/**
 * The error for a non-2xx answer. `route` names the endpoint without ids
 * (`GET /accounts/{uid}/balances`): uids and session ids are bank data.
 */
export function toResponseError(
  route: string,
  response: { status: number; headers: Headers; body: string },
  now: Date,
): UpstreamError {
  const code = parseErrorCode(response.body);
  const reason = reasonOf(response.status, code);
  const retryAfter = parseRetryAfter(response.headers.get("retry-after"), now);
  return new UpstreamError(
    reason,
    `Enable Banking ${route} answered ${response.status}${code ? ` ${code}` : ""}`,
    {
      ...(code !== null && { bankErrorCode: code }),
      ...(retryAfter !== null && { retryAfterSeconds: retryAfter }),
    },
  );
}

export function toUnreachableError(route: string, cause: unknown, timeoutMs: number) {
  const timedOut = cause instanceof Error && cause.name === "TimeoutError";
  return new UpstreamError(
    ENABLE_BANKING_FAILURES.unreachable,
    timedOut
      ? `Enable Banking ${route} did not answer within ${timeoutMs} ms`
      : `Enable Banking ${route} could not be reached`,
    { cause },
  );
}

export function toUnexpectedBodyError(route: string, where: string): UpstreamError {
  return new UpstreamError(
    ENABLE_BANKING_FAILURES.unexpectedBody,
    `Enable Banking ${route} answered an unexpected body${where ? ` (at ${where})` : ""}`,
  );
}

export function toOversizedError(route: string, maxBytes: number): UpstreamError {
  return new UpstreamError(
    ENABLE_BANKING_FAILURES.oversizedBody,
    `Enable Banking ${route} answered more than ${maxBytes} bytes`,
  );
}
