import type { Locale } from "../../i18n/locales";
import { mailTranslator } from "../../i18n/translate";
import { escapeHtml } from "../../http/html";
import { mailButton, mailDocument } from "./html";
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
  const lines = {
    subject: t("webhookDisabled.subject", { partner }),
    greeting: t("greeting"),
    intro: t("webhookDisabled.intro", { partner, service: t("serviceName") }),
    why: t("webhookDisabled.why"),
    fix: t("webhookDisabled.fix"),
    linkText: t("webhookDisabled.linkText"),
  };
  const text = [
    lines.greeting,
    "",
    lines.intro,
    url,
    "",
    lines.why,
    "",
    lines.fix,
    input.dashboardUrl,
    "",
  ].join("\n");
  const html = mailDocument({
    locale: input.locale,
    title: lines.subject,
    main: `<p>${escapeHtml(lines.greeting)}</p>
<p>${escapeHtml(lines.intro)}</p>
<p><code>${escapeHtml(url)}</code></p>
<p>${escapeHtml(lines.why)}</p>
<p>${escapeHtml(lines.fix)}</p>
${mailButton(input.dashboardUrl, lines.linkText)}`,
  });
  return { subject: lines.subject, text, html };
}
