import { createTransport, type Transporter } from "nodemailer";
import type { SmtpSettings } from "../env";
import { MailError, type MailErrorCode } from "./errors";
import type { Mailer, MailMessage } from "./types";

/**
 * Mail through any SMTP relay (RFC 5321) with nodemailer: the provider's
 * relay, the organisation's own MTA, or a mail catcher for local use. Every
 * failure becomes a typed MailError, as with Resend, so a refused or lost
 * sign-in mail is never mistaken for a sent one.
 */

/** A sign-in request must not hang on a slow relay. */
const TIMEOUT_MS = 10_000;

export interface SmtpMailerOptions extends SmtpSettings {
  /** The sender, e.g. `Bank Connect <no-reply@example.com>` (MAIL_FROM). */
  from: string;
  timeoutMs?: number;
  /** Tests: trust the relay's self-signed certificate. */
  tls?: { rejectUnauthorized?: boolean };
}

/** nodemailer's codes for the relay being out of reach (lib/errors of nodemailer). */
const UNREACHABLE = new Set(["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "ETLS", "EPROXY"]);
/** Ours to fix: credentials, TLS policy, a sender the relay will not accept. */
const MISCONFIGURED = new Set(["EAUTH", "ENOAUTH", "EREQUIRETLS", "ECONFIG"]);

export class SmtpMailer implements Mailer {
  readonly name = "smtp";
  private readonly transport: Transporter;

  constructor(private readonly options: SmtpMailerOptions) {
    const timeout = options.timeoutMs ?? TIMEOUT_MS;
    this.transport = createTransport({
      host: options.host,
      port: options.port,
      secure: options.secure,
      requireTLS: !options.secure && options.requireTls,
      auth: options.auth,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      tls: options.tls,
      // The message carries only text and HTML; nothing may be read from disk or the web.
      disableFileAccess: true,
      disableUrlAccess: true,
    });
  }

  async send(message: MailMessage): Promise<void> {
    // link and code stay out of the envelope and headers: they are already in the body.
    try {
      await this.transport.sendMail({
        from: this.options.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
    } catch (error) {
      throw toMailError(error);
    }
  }
}

interface SmtpFailure {
  code?: string;
  responseCode?: number;
  command?: string;
}

/**
 * One line naming the SMTP reply code or nodemailer's error code. The relay's
 * own text is left out, even from `cause`: it often echoes the recipient's
 * address, which logs must not carry.
 */
export function toMailError(error: unknown): MailError {
  const failure: SmtpFailure = typeof error === "object" && error !== null ? error : {};
  const { code, responseCode, command } = failure;
  const cause = { code, responseCode, command };
  if (responseCode !== undefined) {
    return new MailError(
      codeOfReply(responseCode, code),
      `the mail server refused to send (SMTP ${responseCode}${command ? ` to ${command}` : ""})`,
      { cause },
    );
  }
  if (code && MISCONFIGURED.has(code)) {
    return new MailError(
      "misconfigured",
      `the mail server cannot be used as configured (${code})`,
      {
        cause,
      },
    );
  }
  return new MailError(
    UNREACHABLE.has(code ?? "") || !code ? "unavailable" : "rejected",
    `the mail server could not be reached (${code ?? "no answer"})`,
    { cause },
  );
}

/**
 * RFC 5321 §4.2: 4yz is transient, 5yz permanent; 530/535 are authentication
 * (RFC 4954). A relay answering STARTTLS with a refusal (ETLS) cannot be used
 * while TLS is required: that is ours to fix, not the recipient's.
 */
function codeOfReply(reply: number, code: string | undefined): MailErrorCode {
  if (reply === 530 || reply === 535 || code === "ETLS") return "misconfigured";
  if (code && MISCONFIGURED.has(code)) return "misconfigured";
  if (reply === 421 || reply === 450 || reply === 451) return "unavailable";
  if (reply === 452) return "rate_limited";
  return reply >= 500 ? "rejected" : "unavailable";
}
