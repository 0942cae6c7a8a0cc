import type { Locale } from "../../i18n/locales";
import { mailTranslator } from "../../i18n/translate";
import { composeMail } from "./html";
import { toOneLine, type RenderedMail } from "./login";

/**
 * The mail a partner's owners get when one of its webhook endpoints was
 * turned off because every delivery to it failed for days
 * (docs/events.md#retries): which address, why, and the dashboard page
 * where it is fixed and turned on again. Every interpolated value is escaped
 * (the address is the partner's own).
 */

export interface WebhookDisabledMailInput {
  locale: Locale;
  partnerName: string;
  /** The endpoint's address. */
  url: string;
  /** The absolute address of the dashboard's webhooks page. */
  dashboardUrl: string;
}

export async function renderWebhookDisabledMail(
  input: WebhookDisabledMailInput,
): Promise<RenderedMail> {
  const t = await mailTranslator(input.locale);
  const partner = toOneLine(input.partnerName) || t("serviceName");
  const url = toOneLine(input.url);
  return composeMail(input.locale, t("webhookDisabled.subject", { partner }), [
    t("greeting"),
    t("webhookDisabled.intro", { partner, service: t("serviceName") }),
    { code: url },
    t("webhookDisabled.why"),
    t("webhookDisabled.fix"),
    { link: input.dashboardUrl, label: t("webhookDisabled.linkText") },
  ]);
}
