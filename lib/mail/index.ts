import { getEnv, type Env } from "../env";
import { MailError } from "./errors";
import { OutboxMailer } from "./outbox";
import { ResendMailer } from "./resend";
import type { Mailer } from "./types";

export { MailError, type MailErrorCode } from "./errors";
export { findLastMessage, type OutboxEntry } from "./outbox";
export type { Mailer, MailMessage } from "./types";

/**
 * STYLE.md rule 10: the mailer is chosen by configuration. Resend when
 * RESEND_API_KEY is set; otherwise the local outbox, which only a local
 * deployment may use: in production a sign-in mail that never leaves the
 * database would lock every user out, so that fails loudly instead.
 */
export function createMailer(env: Pick<Env, "mode" | "resendApiKey" | "mailFrom">): Mailer {
  if (env.resendApiKey) return new ResendMailer({ apiKey: env.resendApiKey, from: env.mailFrom });
  if (env.mode === "production") {
    // lib/env.ts already refuses to boot like this; this guards any other path here.
    throw new MailError("misconfigured", "RESEND_API_KEY is required in production");
  }
  return new OutboxMailer();
}

const globalForMail = globalThis as unknown as { bankConnectMailer?: Mailer };

/** The process-wide mailer. */
export function mailer(): Mailer {
  globalForMail.bankConnectMailer ??= createMailer(getEnv());
  return globalForMail.bankConnectMailer;
}
