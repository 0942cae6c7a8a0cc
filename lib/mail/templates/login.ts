import type { Locale } from "../../i18n/locales";
import { mailTranslator } from "../../i18n/translate";
import { escapeHtml } from "../../http/html";
import { mailButton, mailDocument } from "./html";

/**
 * The sign-in mail (docs/protocol.md#sign-in): a magic link and a 6-digit code, in the
 * flow's language, naming the partner the user is signing in for. English in
 * messages/en.json is the source; every locale has the "Mail" namespace
 * (docs/architecture.md#english-messages-are-the-source). A plain-text part always comes with simple, accessible
 * HTML in which every interpolated value is escaped: the partner's display
 * name is chosen by the partner, not by us.
 */

export interface LoginMailInput {
  locale: Locale;
  /** The partner's display name; null for a house client (the service's name is used). */
  partnerName: string | null;
  link: string;
  code: string;
  expiresInMinutes: number;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

interface LoginMailLines {
  subject: string;
  greeting: string;
  intro: string;
  linkIntro: string;
  linkText: string;
  codeIntro: string;
  expiry: string;
  ignore: string;
}

export async function renderLoginMail(input: LoginMailInput): Promise<RenderedMail> {
  const lines = await loginMailLines(input);
  return {
    subject: lines.subject,
    text: toText(lines, input),
    html: toHtml(lines, input),
  };
}

async function loginMailLines(input: LoginMailInput): Promise<LoginMailLines> {
  const t = await mailTranslator(input.locale);
  const partner = toOneLine(input.partnerName ?? "") || t("serviceName");
  return {
    subject: t("subject", { partner }),
    greeting: t("greeting"),
    intro: t("intro", { partner }),
    linkIntro: t("linkIntro"),
    linkText: t("linkText", { partner }),
    codeIntro: t("codeIntro"),
    expiry: t("expiry", { minutes: input.expiresInMinutes }),
    ignore: t("ignore"),
  };
}

function toText(lines: LoginMailLines, input: LoginMailInput): string {
  return [
    lines.greeting,
    "",
    lines.intro,
    "",
    lines.linkIntro,
    input.link,
    "",
    lines.codeIntro,
    input.code,
    "",
    lines.expiry,
    lines.ignore,
    "",
  ].join("\n");
}

/**
 * Table-free, style-light HTML that mail clients render alike: the link as a
 * real link (and as text, for clients that hide hrefs), the code large and
 * monospaced with an explicit lang so screen readers use the right voice.
 */
function toHtml(lines: LoginMailLines, input: LoginMailInput): string {
  return mailDocument({
    locale: input.locale,
    title: lines.subject,
    main: `<p>${escapeHtml(lines.greeting)}</p>
<p>${escapeHtml(lines.intro)}</p>
<p>${escapeHtml(lines.linkIntro)}</p>
${mailButton(input.link, lines.linkText)}
<p>${escapeHtml(lines.codeIntro)}</p>
<p style="font-family:ui-monospace,Menlo,Consolas,monospace;font-size:28px;font-weight:700;letter-spacing:6px">${escapeHtml(input.code)}</p>
<p>${escapeHtml(lines.expiry)}</p>
<p style="color:#4a4a4a">${escapeHtml(lines.ignore)}</p>`,
  });
}

/** A partner name as one line: control characters (CR/LF in a subject header) become spaces. */
export function toOneLine(value: string): string {
  return value
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}
