import type { Locale } from "../../i18n/locales";
import { mailTranslator } from "../../i18n/translate";
import { composeMail } from "./html";
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
  return composeMail(input.locale, subject, [
    t("greeting"),
    t("consentEnding.intro", { bank, date, service }),
    t("consentEnding.renew", { bank }),
    { link: input.renewUrl, label: t("consentEnding.linkText") },
    t("consentEnding.after"),
  ]);
}
