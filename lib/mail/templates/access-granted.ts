import type { Locale } from "../../i18n/locales";
import { mailTranslator } from "../../i18n/translate";
import { composeMail } from "./html";
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

/**
 * Mails already rendered: the mail depends only on its input, and every
 * person who grants one partner access in one language gets the same one.
 * Bounded; emptied when full.
 */
const RENDERED_KEPT = 512;
const rendered = new Map<string, RenderedMail>();

export async function renderAccessGrantedMail(
  input: AccessGrantedMailInput,
): Promise<RenderedMail> {
  const key = JSON.stringify([input.locale, input.partnerName, input.accountUrl]);
  const known = rendered.get(key);
  if (known) return { ...known };
  const mail = await renderMail(input);
  if (rendered.size >= RENDERED_KEPT) rendered.clear();
  rendered.set(key, mail);
  return { ...mail };
}

async function renderMail(input: AccessGrantedMailInput): Promise<RenderedMail> {
  const t = await mailTranslator(input.locale);
  const partner = toOneLine(input.partnerName) || t("serviceName");
  return composeMail(input.locale, t("granted.subject", { partner }), [
    t("greeting"),
    t("granted.intro", { partner, service: t("serviceName") }),
    t("granted.manage"),
    { link: input.accountUrl, label: t("granted.linkText") },
    { note: t("granted.notYou") },
  ]);
}
