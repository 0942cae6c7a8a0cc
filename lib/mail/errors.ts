/**
 * Mail failures, keyed by a code (docs/architecture.md#typed-errors). A failure is never
 * swallowed: "e-mail that silently does nothing" is a listed anti-pattern.
 * The provider's own answer rides in `cause`, for the logs; the message is
 * one plain line without addresses, links or codes (docs/security.md).
 */

export const MAIL_ERROR_CODES = [
  /** The provider refused this message (validation, bad recipient). */
  "rejected",
  /** The provider's sending limits or quota are exhausted. */
  "rate_limited",
  /** The provider could not be reached or failed on its side. */
  "unavailable",
  /** The configuration cannot send mail (missing or refused API key, bad sender). */
  "misconfigured",
  /** The outbox holds no message for that address. */
  "not_found",
] as const;

export type MailErrorCode = (typeof MAIL_ERROR_CODES)[number];

export class MailError extends Error {
  constructor(
    readonly code: MailErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "MailError";
  }
}
