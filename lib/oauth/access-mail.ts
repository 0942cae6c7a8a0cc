import { db } from "../db/client";
import { getEnv } from "../env";
import { defaultLocale, isLocale, type Locale } from "../i18n/locales";
import { log } from "../log";
import { mailer } from "../mail";
import { renderAccessGrantedMail } from "../mail/templates/access-granted";

/**
 * Tells a person that a partner can now read their bank data, with the link
 * to "My access" where they end it (docs/account.md). Sent once the token
 * exchange has minted the key, in the background: the exchange neither
 * waits for it nor fails with it; a mail provider's hiccup is logged.
 * House clients (no partner) send nothing: the person is the reader.
 */
export async function mailAccessGranted(input: {
  tenantSubject: string;
  partnerId: string | null;
}): Promise<void> {
  if (!input.partnerId) return;
  const tenant = await db().tenant.findUnique({
    where: { subject: input.tenantSubject },
    select: {
      user: { select: { email: true, locale: true } },
      partner: { select: { name: true, displayName: true, defaultLanguage: true } },
    },
  });
  if (!tenant?.partner) return;
  const locale: Locale = isLocale(tenant.user.locale)
    ? tenant.user.locale
    : isLocale(tenant.partner.defaultLanguage)
      ? tenant.partner.defaultLanguage
      : defaultLocale;
  const mail = await renderAccessGrantedMail({
    locale,
    partnerName: tenant.partner.displayName || tenant.partner.name,
    accountUrl: `${getEnv().issuer}/account`,
  });
  await mailer().send({ to: tenant.user.email, ...mail });
}

const inFlight = new Set<Promise<void>>();

/** The same, in the background of the exchange that minted the key. */
export function mailAccessGrantedLater(input: {
  tenantSubject: string;
  partnerId: string | null;
}): void {
  const sending = mailAccessGranted(input)
    .catch((error: unknown) =>
      log.warn("mail.access_granted_failed", {
        error: error instanceof Error ? error.message : String(error),
      }),
    )
    .finally(() => inFlight.delete(sending));
  inFlight.add(sending);
}

/** Resolves once every mail started so far is sent or given up (tests, shutdown). */
export async function accessMailsSettled(): Promise<void> {
  await Promise.all([...inFlight]);
}
