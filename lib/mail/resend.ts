import { Resend } from "resend";
import { MailError, type MailErrorCode } from "./errors";
import type { Mailer, MailMessage } from "./types";

/**
 * The real mailer: Resend's HTTP API through its official client. The client
 * answers `{ data, error }` instead of throwing; every error becomes a typed
 * MailError here, so a refused or lost sign-in mail is never mistaken for a
 * sent one (docs/architecture.md#integrations-behind-small-interfaces: no e-mail
 * that silently does nothing).
 */

/** Resend's client has no timeout of its own; a sign-in request must not hang on it. */
const SEND_TIMEOUT_MS = 10_000;

/** Resend's error names (its `RESEND_ERROR_CODE_KEY`), mapped to ours; unlisted ones are "rejected". */
const RESEND_ERROR_CODES: Readonly<Record<string, MailErrorCode>> = {
  missing_api_key: "misconfigured",
  invalid_api_key: "misconfigured",
  restricted_api_key: "misconfigured",
  invalid_from_address: "misconfigured",
  invalid_access: "misconfigured",
  invalid_region: "misconfigured",
  rate_limit_exceeded: "rate_limited",
  daily_quota_exceeded: "rate_limited",
  monthly_quota_exceeded: "rate_limited",
  concurrent_idempotent_requests: "rate_limited",
  application_error: "unavailable",
  internal_server_error: "unavailable",
};

export interface ResendMailerOptions {
  apiKey: string;
  /** The sender, e.g. `Bank Connect <no-reply@example.com>` (MAIL_FROM). */
  from: string;
  /** Tests point the client at a local stand-in for the API. */
  baseUrl?: string;
  timeoutMs?: number;
}

interface ResendErrorAnswer {
  name: string;
  statusCode: number | null;
  message: string;
}

export class ResendMailer implements Mailer {
  readonly name = "resend";
  private readonly client: Resend;

  constructor(private readonly options: ResendMailerOptions) {
    this.client = new Resend(options.apiKey, options.baseUrl ? { baseUrl: options.baseUrl } : {});
  }

  async send(message: MailMessage): Promise<void> {
    // link and code stay out of the payload: they are already in the body.
    const payload = {
      from: this.options.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
    };
    const signal = AbortSignal.timeout(this.options.timeoutMs ?? SEND_TIMEOUT_MS);
    let answer;
    try {
      answer = await this.client.emails.send(payload, { signal });
    } catch (error) {
      throw new MailError("unavailable", "the mail provider could not be reached", {
        cause: error,
      });
    }
    if (answer.error) throw toMailError(answer.error);
  }
}

/** One line naming Resend's error and status; Resend's own message rides in `cause`. */
export function toMailError(answer: ResendErrorAnswer): MailError {
  // statusCode null: no answer at all (DNS, refused connection, timeout); 5xx: a fault on its side.
  const providerFailed = answer.statusCode === null || answer.statusCode >= 500;
  const code = providerFailed ? "unavailable" : (RESEND_ERROR_CODES[answer.name] ?? "rejected");
  const status = answer.statusCode === null ? "no answer" : `HTTP ${answer.statusCode}`;
  return new MailError(code, `the mail provider refused to send (${answer.name}, ${status})`, {
    cause: answer,
  });
}
