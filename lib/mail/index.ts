import { getEnv, type Env } from "../env";
import { countedMailer } from "./counted";
import { MailError } from "./errors";
import { OutboxMailer } from "./outbox";
import { ResendMailer } from "./resend";
import { SmtpMailer } from "./smtp";
import type { Mailer } from "./types";

export { MailError, type MailErrorCode } from "./errors";
export { findLastMessage, type OutboxEntry } from "./outbox";
export type { Mailer, MailMessage } from "./types";

/**
 * The mailer is chosen by configuration. Resend when RESEND_API_KEY is set,
 * an SMTP relay when SMTP_URL or SMTP_HOST is (lib/env.ts refuses both);
 * otherwise the local outbox, which only local mode may use (development,
 * tests, and a production build started with LOCAL_ONLY=true): in production
 * the outbox would keep live sign-in links and codes in the database and
 * never deliver them, so production mode refuses to start without a provider
 * (lib/env.ts) and this fails loudly too.
 */
export function createMailer(
  env: Pick<Env, "mode" | "resendApiKey" | "mailFrom"> & Partial<Pick<Env, "smtp">>,
): Mailer {
  // Every message the chosen provider is handed is counted by outcome (./counted.ts).
  return countedMailer(chooseMailer(env));
}

function chooseMailer(env: Parameters<typeof createMailer>[0]): Mailer {
  if (env.resendApiKey) return new ResendMailer({ apiKey: env.resendApiKey, from: env.mailFrom });
  if (env.smtp) return new SmtpMailer({ ...env.smtp, from: env.mailFrom });
  if (env.mode === "production") {
    // lib/env.ts already refuses to boot like this; this guards any other path here.
    throw new MailError(
      "misconfigured",
      "RESEND_API_KEY or SMTP_URL/SMTP_HOST is required in production",
    );
  }
  return new OutboxMailer();
}

const globalForMail = globalThis as unknown as { bankConnectMailer?: Mailer };

/** The process-wide mailer. */
export function mailer(): Mailer {
  globalForMail.bankConnectMailer ??= createMailer(getEnv());
  return globalForMail.bankConnectMailer;
}
