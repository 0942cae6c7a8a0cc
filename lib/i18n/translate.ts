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

/** The page for an authorization request that cannot be verified (lib/oauth/authorize-error-page.ts). */
export async function authorizeErrorTranslator(locale: Locale) {
  return createTranslator({
    locale,
    messages: await loadMessages(locale),
    namespace: "AuthorizeError",
  });
}

/**
 * A strict translator for mails: a missing or broken message throws rather
 * than putting a key into someone's inbox.
 */
function createMailTranslator(locale: Locale, messages: Awaited<ReturnType<typeof loadMessages>>) {
  return createTranslator({
    locale,
    messages,
    namespace: "Mail",
    onError: (error) => {
      throw error;
    },
  });
}

const mailTranslators = new Map<Locale, Promise<ReturnType<typeof createMailTranslator>>>();

export function mailTranslator(locale: Locale) {
  // One per locale and process: a translator keeps its parsed messages, so a
  // mail after the first costs no ICU parsing.
  let translator = mailTranslators.get(locale);
  if (!translator) {
    translator = loadMessages(locale).then((messages) => createMailTranslator(locale, messages));
    // A failed load is not kept: the next mail tries again.
    translator.catch(() => mailTranslators.delete(locale));
    mailTranslators.set(locale, translator);
  }
  return translator;
}
