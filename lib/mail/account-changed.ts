import { getEnv } from "../env";
import { defaultLocale, isLocale } from "../i18n/locales";
import { log } from "../log";
import { deliverMail } from "../jobs/mail";
import {
  renderAccountChangedMail,
  renderPasskeyAddedMail,
  type AccountChange,
} from "./templates/account-changed";

/**
 * Tells the person by mail that their key was replaced or that everything
 * was deleted (docs/account.md#what-you-are-told-by-mail). The change has
 * happened whatever the mail does: a provider's failure is logged, not
 * turned into a failed request, which the person would retry.
 */
export async function mailAccountChanged(input: {
  email: string;
  locale: string | null;
  change: AccountChange;
}): Promise<void> {
  const mail = await renderAccountChangedMail({
    locale: isLocale(input.locale) ? input.locale : defaultLocale,
    change: input.change,
    accountUrl: input.change === "keyReplaced" ? `${getEnv().issuer}/account` : null,
  });
  try {
    // A failure that may pass is queued for another try (lib/jobs/mail.ts).
    await deliverMail({ to: input.email, ...mail }, { kind: "account_changed" });
  } catch (error) {
    // The address is personal data: the log names the change only.
    log.warn("mail.account_changed_failed", {
      change: input.change,
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * Tells the person by mail that a passkey was added to their account: its
 * name, when, and /account to remove it if it was not them
 * (docs/account.md#what-you-are-told-by-mail). Like the mails above, a
 * provider's failure is logged, never the passkey's registration undone.
 */
export async function mailPasskeyAdded(input: {
  email: string;
  locale: string | null;
  passkeyName: string;
  at: Date;
}): Promise<void> {
  const mail = await renderPasskeyAddedMail({
    locale: isLocale(input.locale) ? input.locale : defaultLocale,
    passkeyName: input.passkeyName,
    at: input.at,
    accountUrl: `${getEnv().issuer}/account`,
  });
  try {
    // A failure that may pass is queued for another try (lib/jobs/mail.ts).
    await deliverMail({ to: input.email, ...mail }, { kind: "account_changed" });
  } catch (error) {
    log.warn("mail.account_changed_failed", {
      change: "passkeyAdded",
      error: error instanceof Error ? error.message : String(error),
    });
  }
}
