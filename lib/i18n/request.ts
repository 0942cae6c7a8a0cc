import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { isLocale, negotiateLocale, type Locale } from "./locales";
import { loadMessages } from "./messages";

/** Cookie holding the language a user picked on a screen. */
export const LOCALE_COOKIE = "bc_locale";

/**
 * next-intl request configuration. Screens that know more (a flow's
 * ui_locales, the partner's default) pass `locale` explicitly; everything else
 * falls back to the user's pick and the browser's Accept-Language.
 */
export default getRequestConfig(async ({ locale: explicit }) => {
  let locale: Locale;
  if (isLocale(explicit)) {
    locale = explicit;
  } else {
    const [cookieStore, headerStore] = await Promise.all([cookies(), headers()]);
    locale = negotiateLocale({
      userChoice: cookieStore.get(LOCALE_COOKIE)?.value,
      acceptLanguage: headerStore.get("accept-language"),
    });
  }
  return { locale, messages: await loadMessages(locale) };
});
