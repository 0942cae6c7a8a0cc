import { queryOne, sql } from "../db/sql";
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
  // One round trip: this runs after every code exchange.
  const tenant = await queryOne<{
    email: string;
    userLocale: string | null;
    partnerName: string;
    partnerDisplayName: string | null;
    partnerLanguage: string | null;
  }>(
    sql`SELECT u."email", u."locale" AS "userLocale", p."name" AS "partnerName",
               p."displayName" AS "partnerDisplayName", p."defaultLanguage" AS "partnerLanguage"
          FROM "Tenant" t JOIN "User" u ON u."id" = t."userId" JOIN "Partner" p ON p."id" = t."partnerId"
         WHERE t."subject" = ${input.tenantSubject}`,
  );
  if (!tenant) return;
  const locale: Locale = isLocale(tenant.userLocale)
    ? tenant.userLocale
    : isLocale(tenant.partnerLanguage)
      ? tenant.partnerLanguage
      : defaultLocale;
  const mail = await renderAccessGrantedMail({
    locale,
    partnerName: tenant.partnerDisplayName || tenant.partnerName,
    accountUrl: `${getEnv().issuer}/account`,
  });
  await mailer().send({ to: tenant.email, ...mail });
}

const inFlight = new Set<Promise<void>>();

/**
 * One mail per person and partner in this window: a partner that sends the
 * person through again minutes later (a retry, a second device) does not
 * fill their inbox with the same news; "My access" lists every key.
 */
export const GRANT_MAIL_QUIET_MS = 10 * 60_000;

/** When each tenant (one person with one partner) was last mailed, per process. */
const LAST_MAILED = Symbol.for("bank-connect.grant-mails");
const lastMailed = ((globalThis as { [LAST_MAILED]?: Map<string, number> })[LAST_MAILED] ??=
  new Map<string, number>());

function mailedRecently(tenantSubject: string, now: number): boolean {
  const last = lastMailed.get(tenantSubject);
  if (last !== undefined && now - last < GRANT_MAIL_QUIET_MS) return true;
  if (lastMailed.size >= 10_000) {
    for (const [subject, at] of lastMailed)
      if (now - at >= GRANT_MAIL_QUIET_MS) lastMailed.delete(subject);
  }
  lastMailed.set(tenantSubject, now);
  return false;
}

/** The same, in the background of the exchange that minted the key. */
export function mailAccessGrantedLater(input: {
  tenantSubject: string;
  partnerId: string | null;
}): void {
  if (!input.partnerId || mailedRecently(input.tenantSubject, Date.now())) return;
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
