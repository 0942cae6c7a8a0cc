import type { Locale } from "../../i18n/locales";
import { mailTranslator } from "../../i18n/translate";
import { escapeHtml } from "../../http/html";
import { formatDateTime } from "../../i18n/date-time";
import { mailButton, mailDocument } from "./html";
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
  const lines = [
    t("greeting"),
    t(`${input.change}.intro`, { service }),
    t(`${input.change}.notYou`),
  ];
  const link =
    input.accountUrl && input.change === "keyReplaced"
      ? { url: input.accountUrl, text: t("keyReplaced.linkText") }
      : null;
  const text = [...lines.flatMap((line) => [line, ""]), ...(link ? [link.url, ""] : [])].join("\n");
  const html = mailDocument({
    locale: input.locale,
    title: subject,
    main: [
      ...lines.map((line) => `<p>${escapeHtml(line)}</p>`),
      ...(link ? [mailButton(link.url, link.text)] : []),
    ].join("\n"),
  });
  return { subject, text, html };
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
  const lines = [
    t("greeting"),
    t("passkeyAdded.intro", { service, name, at }),
    t("passkeyAdded.notYou"),
  ];
  const linkText = t("passkeyAdded.linkText");
  const text = [...lines.flatMap((line) => [line, ""]), input.accountUrl, ""].join("\n");
  const html = mailDocument({
    locale: input.locale,
    title: subject,
    main: [
      ...lines.map((line) => `<p>${escapeHtml(line)}</p>`),
      mailButton(input.accountUrl, linkText),
    ].join("\n"),
  });
  return { subject, text, html };
}
