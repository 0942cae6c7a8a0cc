/**
 * Errors of partner and client administration (the admin CLI and, later, the
 * partner dashboard). Keyed by a code (docs/architecture.md#typed-errors); the message is one
 * plain-English line fit to show the administrator; internals ride in `cause`.
 */

export const PARTNER_ERROR_CODES = [
  "unknown_partner",
  "unknown_client",
  "invalid_name",
  "invalid_email",
  "invalid_domain",
  "invalid_redirect_uris",
  "invalid_client_id",
  "duplicate_client_id",
  "recipient_key_required",
  "conflict",
] as const;

export type PartnerErrorCode = (typeof PARTNER_ERROR_CODES)[number];

export class PartnerError extends Error {
  constructor(
    readonly code: PartnerErrorCode,
    message: string,
    /** Further one-line explanations (e.g. one per bad redirect URI). */
    readonly details: readonly string[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "PartnerError";
  }
}
