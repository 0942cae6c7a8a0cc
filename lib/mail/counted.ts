import { countMail } from "../metrics";
import { MailError } from "./errors";
import type { Mailer, MailMessage } from "./types";

/**
 * The mailer, each message it is handed counted by outcome
 * (`bank_connect_mails_total{provider, outcome}`, docs/observability.md):
 * `sent` once the provider accepted it, otherwise the MailError's code
 * (`rejected`, `rate_limited`, `unavailable`, `misconfigured`) or `error`.
 * A retried message counts once per attempt.
 */
export function countedMailer(mailer: Mailer): Mailer {
  const outcomeOf = (error: unknown) => (error instanceof MailError ? error.code : "error");
  const counted: Mailer = {
    get name() {
      return mailer.name;
    },
    async send(message: MailMessage) {
      try {
        await mailer.send(message);
      } catch (error) {
        countMail(mailer.name, outcomeOf(error));
        throw error;
      }
      countMail(mailer.name, "sent");
    },
  };
  const { sendMany } = mailer;
  if (sendMany) {
    counted.sendMany = async (messages) => {
      try {
        await sendMany.call(mailer, messages);
      } catch (error) {
        countMail(mailer.name, outcomeOf(error), messages.length);
        throw error;
      }
      countMail(mailer.name, "sent", messages.length);
    };
  }
  return counted;
}
