import type { Locale } from "../../i18n/locales";
import { mailTranslator } from "../../i18n/translate";
import { formatDateTime } from "../../i18n/date-time";
import { composeMail, type MailBlock } from "./html";
import { toOneLine, type RenderedMail } from "./login";

/**
 * The mails a person gets after an irreversible change to their account
 * (docs/account.md): their key was replaced (starting over), or everything
 * was deleted. Each says what happened and what to do if it was not them;
 * a signed-in session is what made the change, and sign-in goes through the
 * mailbox, so the mailbox is what to secure first.
 */

export type AccountChange = "keyReplaced" | "deleted";

export interface AccountChangedMailInput {
  locale: Locale;
  change: AccountChange;
  /** The absolute address of /account: only where something is left to see there. */
  accountUrl: string | null;
}

export async function renderAccountChangedMail(
  input: AccountChangedMailInput,
): Promise<RenderedMail> {
  const t = await mailTranslator(input.locale);
  const service = t("serviceName");
  const subject = t(`${input.change}.subject`, { service });
  const link: MailBlock[] =
    input.accountUrl && input.change === "keyReplaced"
      ? [{ link: input.accountUrl, label: t("keyReplaced.linkText") }]
      : [];
  return composeMail(input.locale, subject, [
    t("greeting"),
    t(`${input.change}.intro`, { service }),
    t(`${input.change}.notYou`),
    ...link,
  ]);
}

export interface PasskeyAddedMailInput {
  locale: Locale;
  /** The passkey's name as /account shows it (the person's own choice: escaped). */
  passkeyName: string;
  at: Date;
  /** The absolute address of /account, where a passkey is removed. */
  accountUrl: string;
}

/**
 * The mail a person gets when a passkey was added to their account: which
 * one, when (in UTC, the zone named), and what to do if it was not them. A
 * passkey signs in without the mailbox, so one added by someone else is
 * removed on /account, after the mailbox is secured.
 */
export async function renderPasskeyAddedMail(input: PasskeyAddedMailInput): Promise<RenderedMail> {
  const t = await mailTranslator(input.locale);
  const service = t("serviceName");
  const subject = t("passkeyAdded.subject", { service });
  const name = toOneLine(input.passkeyName) || "Passkey";
  const at = formatDateTime(input.locale, input.at, "UTC");
  return composeMail(input.locale, subject, [
    t("greeting"),
    t("passkeyAdded.intro", { service, name, at }),
    t("passkeyAdded.notYou"),
    { link: input.accountUrl, label: t("passkeyAdded.linkText") },
  ]);
}
