import { createTranslator } from "next-intl";
import type { Locale } from "./locales";
import { loadMessages } from "./messages";

/**
 * Translations outside React (the relay page, e-mails): the same catalogues
 * and namespaces as the screens (docs/architecture.md#english-messages-are-the-source).
 */
export async function relayLabels(locale: Locale) {
  const t = createTranslator({ locale, messages: await loadMessages(locale), namespace: "Relay" });
  return { lang: locale, title: t("title"), message: t("message"), button: t("button") };
}

/**
 * A strict translator for mails: a missing or broken message throws rather
 * than putting a key into someone's inbox.
 */
export async function mailTranslator(locale: Locale) {
  return createTranslator({
    locale,
    messages: await loadMessages(locale),
    namespace: "Mail",
    onError: (error) => {
      throw error;
    },
  });
}
