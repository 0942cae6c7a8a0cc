import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { findSessionUser, sessionCookieName } from "@/lib/auth/sessions";
import { flowCookieName, findFlowRecordByCookie } from "@/lib/flow/flows";
import { isDatabaseUnavailable } from "@/lib/db/faults";
import { flowLocale, isFlowScreen } from "@/lib/flow/locale";
import { PATH_HEADER } from "@/lib/http/security-headers";
import { isLocale, negotiateLocale, type Locale } from "@/lib/i18n/locales";
import { loadMessages } from "@/lib/i18n/messages";

/** Cookie holding the language a user picked on a screen. */
export const LOCALE_COOKIE = "bc_locale";

/**
 * next-intl request configuration: the framework glue that picks a request's
 * language, kept outside lib/ because it reads the session and the flow. Flow screens speak the flow's language
 * (ui_locales → the user's choice → the partner's default → Accept-Language
 * → en); other pages the user's pick and Accept-Language. Callers that know
 * better pass `locale` explicitly.
 */
export default getRequestConfig(async ({ locale: explicit }) => {
  const locale = isLocale(explicit) ? explicit : await requestLocale();
  return { locale, messages: await loadMessages(locale) };
});

async function requestLocale(): Promise<Locale> {
  const [cookieStore, headerStore] = await Promise.all([cookies(), headers()]);
  const acceptLanguage = headerStore.get("accept-language");
  const userChoice = cookieStore.get(LOCALE_COOKIE)?.value;
  if (!isFlowScreen(headerStore.get(PATH_HEADER) ?? "")) {
    return negotiateLocale({ userChoice, acceptLanguage });
  }
  try {
    // A finished or expired flow still sets the language of the screen that says so.
    const [record, user] = await Promise.all([
      findFlowRecordByCookie(cookieStore.get(flowCookieName())?.value),
      findSessionUser(cookieStore.get(sessionCookieName())?.value),
    ]);
    return flowLocale({
      flow: record?.flow ?? null,
      userChoice: user?.locale ?? userChoice,
      acceptLanguage,
    });
  } catch (error) {
    // While the database is down the screens still speak the browser's language.
    if (!isDatabaseUnavailable(error)) throw error;
    return negotiateLocale({ userChoice, acceptLanguage });
  }
}
