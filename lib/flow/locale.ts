import { negotiateLocale, type Locale } from "../i18n/locales";

/** The screens whose language follows the browser's flow (docs/architecture.md#languages). */
export const FLOW_SCREEN_PREFIXES = [
  "/login",
  "/setup",
  "/banks",
  "/consent",
  "/sandbox",
  "/error",
];

export function isFlowScreen(pathname: string): boolean {
  return FLOW_SCREEN_PREFIXES.some(
    (prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`),
  );
}

/**
 * The flow's language (/docs/flow, docs/architecture.md#languages): ui_locales
 * (kept on the flow) forces it;
 * otherwise the user's choice, the partner's default, Accept-Language, en.
 */
export function flowLocale(input: {
  flow: {
    locale: string | null;
    client: { partner: { defaultLanguage: string | null } | null };
  } | null;
  userChoice: string | null | undefined;
  acceptLanguage: string | null;
}): Locale {
  return negotiateLocale({
    uiLocales: input.flow?.locale,
    userChoice: input.userChoice,
    partnerDefault: input.flow?.client.partner?.defaultLanguage,
    acceptLanguage: input.acceptLanguage,
  });
}
