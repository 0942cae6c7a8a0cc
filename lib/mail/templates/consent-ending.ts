import type { Locale } from "../../i18n/locales";
import { mailTranslator } from "../../i18n/translate";
import { escapeHtml } from "../../http/html";
import { mailButton, mailDocument } from "./html";
import { toOneLine, type RenderedMail } from "./login";

/**
 * The reminder a person gets some days before a bank consent ends
 * (docs/events.md#reminders): which bank, on which day (in UTC, as /account
 * shows it), and one link that renews the consent at the bank. The bank's
 * name comes from the aggregator: escaped like every interpolated value.
 */

export interface ConsentEndingMailInput {
  locale: Locale;
  bankName: string;
  validUntil: Date;
  /** The absolute address that starts the renewal of this consent. */
  renewUrl: string;
}

export async function renderConsentEndingMail(
  input: ConsentEndingMailInput,
): Promise<RenderedMail> {
  const t = await mailTranslator(input.locale);
  const service = t("serviceName");
  const bank = toOneLine(input.bankName) || service;
  const date = new Intl.DateTimeFormat(input.locale, {
    dateStyle: "long",
    timeZone: "UTC",
  }).format(input.validUntil);
  const subject = t("consentEnding.subject", { bank });
  const lines = [
    t("greeting"),
    t("consentEnding.intro", { bank, date, service }),
    t("consentEnding.renew", { bank }),
  ];
  const after = t("consentEnding.after");
  const linkText = t("consentEnding.linkText");
  const text = [...lines.flatMap((line) => [line, ""]), input.renewUrl, "", after, ""].join("\n");
  const html = mailDocument({
    locale: input.locale,
    title: subject,
    main: [
      ...lines.map((line) => `<p>${escapeHtml(line)}</p>`),
      mailButton(input.renewUrl, linkText),
      `<p>${escapeHtml(after)}</p>`,
    ].join("\n"),
  });
  return { subject, text, html };
}
