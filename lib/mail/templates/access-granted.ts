import type { Locale } from "../../i18n/locales";
import { mailTranslator } from "../../i18n/translate";
import { escapeHtml } from "../../http/html";
import { toOneLine, type RenderedMail } from "./login";

/**
 * The mail a person gets when a partner was granted access to their bank
 * data (docs/account.md): who can now read it, and the link to the "My
 * access" page where it is ended. Like the sign-in mail, a plain-text part
 * and simple HTML in which every interpolated value is escaped (the
 * partner's name is the partner's choice).
 */

export interface AccessGrantedMailInput {
  locale: Locale;
  partnerName: string;
  /** The absolute address of /account. */
  accountUrl: string;
}

export async function renderAccessGrantedMail(
  input: AccessGrantedMailInput,
): Promise<RenderedMail> {
  const t = await mailTranslator(input.locale);
  const partner = toOneLine(input.partnerName) || t("serviceName");
  const lines = {
    subject: t("granted.subject", { partner }),
    greeting: t("greeting"),
    intro: t("granted.intro", { partner, service: t("serviceName") }),
    manage: t("granted.manage"),
    linkText: t("granted.linkText"),
    notYou: t("granted.notYou"),
  };
  const text = [
    lines.greeting,
    "",
    lines.intro,
    "",
    lines.manage,
    input.accountUrl,
    "",
    lines.notYou,
    "",
  ].join("\n");
  const link = escapeHtml(input.accountUrl);
  const html = `<!doctype html>
<html lang="${escapeHtml(input.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(lines.subject)}</title>
</head>
<body style="margin:0;padding:24px;background:#ffffff;color:#1a1a1a;font-family:system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif;font-size:16px;line-height:1.5">
<main style="max-width:560px;margin:0 auto">
<p>${escapeHtml(lines.greeting)}</p>
<p>${escapeHtml(lines.intro)}</p>
<p>${escapeHtml(lines.manage)}</p>
<p><a href="${link}" style="display:inline-block;padding:12px 20px;background:#1a4fd6;color:#ffffff;border-radius:6px;text-decoration:none;font-weight:600">${escapeHtml(lines.linkText)}</a></p>
<p style="font-size:14px;word-break:break-all"><a href="${link}" style="color:#1a4fd6">${link}</a></p>
<p style="color:#4a4a4a">${escapeHtml(lines.notYou)}</p>
</main>
</body>
</html>
`;
  return { subject: lines.subject, text, html };
}
