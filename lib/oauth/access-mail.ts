import { getEnv } from "../env";
import { defaultLocale, isLocale, type Locale } from "../i18n/locales";
import { log } from "../log";
import { deliverMail } from "../jobs/mail";
import { mailer, type MailMessage } from "../mail";
import { accountPageUrl } from "../mail/account-link";
import { renderAccessGrantedMail } from "../mail/templates/access-granted";
import { findGrantedTenants } from "./queries";

/** One grant to tell a person about: the tenant (person and partner) it was made for. */
export interface AccessGrant {
  tenantSubject: string;
  partnerId: string | null;
}

/**
 * Tells each person that a partner can now read their bank data, with the
 * link to "My access" where they end it (docs/account.md), naming the
 * partner so that the page leads back to it. One statement
 * finds every grant's person and partner, and the local outbox stores all
 * the mails in one more; a provider gets them one by one. House clients (no
 * partner) send nothing: the person is the reader. Rejects when the mails
 * could not be sent; the grants themselves stand.
 */
export async function mailAccessGrants(grants: readonly AccessGrant[]): Promise<void> {
  const subjects = [
    ...new Set(grants.filter((grant) => grant.partnerId).map((grant) => grant.tenantSubject)),
  ];
  if (subjects.length === 0) return;
  // Once per batch, of any size: `= ANY` keeps one statement text (see docs/architecture.md).
  const tenants = await findGrantedTenants(subjects);
  const mails = await Promise.all(
    tenants.map(async (tenant): Promise<MailMessage> => {
      const locale: Locale = isLocale(tenant.userLocale)
        ? tenant.userLocale
        : isLocale(tenant.partnerLanguage)
          ? tenant.partnerLanguage
          : defaultLocale;
      const mail = await renderAccessGrantedMail({
        locale,
        partnerName: tenant.partnerDisplayName || tenant.partnerName,
        // The page then offers the way back to this partner.
        accountUrl: accountPageUrl(getEnv().issuer, tenant.partnerId),
      });
      return { to: tenant.email, ...mail };
    }),
  );
  await sendAll(mails);
}

/** The same for one grant. */
export const mailAccessGranted = (grant: AccessGrant) => mailAccessGrants([grant]);

async function sendAll(mails: MailMessage[]): Promise<void> {
  const sender = mailer();
  if (sender.sendMany) return sender.sendMany(mails);
  // A failure that may pass is queued for another try (lib/jobs/mail.ts).
  const results = await Promise.allSettled(
    mails.map((mail) => deliverMail(mail, { kind: "access_granted" })),
  );
  const failed = results.filter((result) => result.status === "rejected");
  if (failed.length > 0) {
    throw new Error(
      `${failed.length} of ${mails.length} access-granted mails were not sent: ${String(failed[0]?.reason)}`,
    );
  }
}

/**
 * One mail per person and partner in this window: a partner that sends the
 * person through again minutes later (a retry, a second device) does not
 * fill their inbox with the same news; "My access" lists every key.
 */
export const GRANT_MAIL_QUIET_MS = 10 * 60_000;

/** How long a grant waits for others to be mailed with: its exchange has long been answered. */
export const GRANT_MAIL_BATCH_MS = 100;
/** A batch this large is sent at once. */
export const GRANT_MAIL_BATCH_SIZE = 100;

/**
 * Per process, on globalThis: the service's HTTP server (which answers the
 * token exchange itself, lib/api/direct-routes.ts) and Next's bundle each
 * load their own copy of this module, and the shutdown must send what
 * either queued.
 */
interface GrantMails {
  /** When each tenant (one person with one partner) was last mailed. */
  lastMailed: Map<string, number>;
  pending: AccessGrant[];
  timer: ReturnType<typeof setTimeout> | null;
  inFlight: Set<Promise<void>>;
}
const STATE = Symbol.for("bank-connect.grant-mail-queue");
const state: GrantMails = ((globalThis as { [STATE]?: GrantMails })[STATE] ??= {
  lastMailed: new Map(),
  pending: [],
  timer: null,
  inFlight: new Set(),
});

function mailedRecently(tenantSubject: string, now: number): boolean {
  const { lastMailed } = state;
  const last = lastMailed.get(tenantSubject);
  if (last !== undefined && now - last < GRANT_MAIL_QUIET_MS) return true;
  if (lastMailed.size >= 10_000) {
    for (const [subject, at] of lastMailed)
      if (now - at >= GRANT_MAIL_QUIET_MS) lastMailed.delete(subject);
  }
  lastMailed.set(tenantSubject, now);
  return false;
}

/**
 * The same, in the background of the exchange that minted the key: the
 * grants of exchanges that end close together are mailed together, within
 * GRANT_MAIL_BATCH_MS, so that a burst of exchanges costs two statements
 * per batch instead of two per exchange. The exchange neither waits for the
 * mail nor fails with it; a provider's hiccup is logged.
 */
export function mailAccessGrantedLater(grant: AccessGrant): void {
  if (!grant.partnerId || mailedRecently(grant.tenantSubject, Date.now())) return;
  state.pending.push(grant);
  if (state.pending.length >= GRANT_MAIL_BATCH_SIZE) sendPending();
  else state.timer ??= setTimeout(sendPending, GRANT_MAIL_BATCH_MS);
}

function sendPending(): void {
  if (state.timer) clearTimeout(state.timer);
  state.timer = null;
  const grants = state.pending.splice(0);
  if (grants.length === 0) return;
  const sending = mailAccessGrants(grants)
    .catch((error: unknown) =>
      log.warn("mail.access_granted_failed", {
        grants: grants.length,
        error: error instanceof Error ? error.message : String(error),
      }),
    )
    .finally(() => state.inFlight.delete(sending));
  state.inFlight.add(sending);
}

/** Sends what is queued now and resolves once every mail so far is sent or given up (tests, shutdown). */
export async function accessMailsSettled(): Promise<void> {
  sendPending();
  await Promise.all([...state.inFlight]);
}
