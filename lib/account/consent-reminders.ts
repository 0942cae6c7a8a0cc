import { db } from "../db/client";
import { getEnv, rawSetting } from "../env";
import { defaultLocale, isLocale } from "../i18n/locales";
import { deliverMail } from "../jobs/mail";
import { log } from "../log";
import { renderConsentEndingMail } from "../mail/templates/consent-ending";
import { recordConnectionExpired, recordConnectionExpiring } from "../webhooks/producers";
import { renewPath } from "./renew-consent";

/**
 * The hourly `consents` job (docs/events.md#reminders): a person whose bank
 * consent ends within CONSENT_REMINDER_DAYS (7 by default) is mailed once,
 * in their language, with one link that renews it. Once means once however
 * many instances or runs see the consent: each mail is claimed first with
 * one `UPDATE … WHERE expiryReminderSentAt IS NULL`, and only the run whose
 * update changed the row sends it. A consent that no application reads any
 * more (every key of its tenant revoked: the person ended each partner's
 * access to it, or the partner did) gets no mail.
 *
 * The same run tells partners (docs/events.md#types): `connection.expiring`
 * for each active consent within those days, and `connection.expired` for
 * each still active past its end, each once per consent (lib/webhooks/producers.ts
 * claims them the same way).
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const BATCH = 200;
/** Batches one run takes at most of each kind; the next hour's run goes on. */
const MAX_ROUNDS = 50;
export const DEFAULT_REMINDER_DAYS = 7;

/** CONSENT_REMINDER_DAYS: how many days before a consent ends its reminder goes out (1–60). */
export function reminderDays(): number {
  const raw = rawSetting("CONSENT_REMINDER_DAYS");
  if (raw === undefined || raw.trim() === "") return DEFAULT_REMINDER_DAYS;
  const days = Number(raw);
  if (!Number.isInteger(days) || days < 1 || days > 60) {
    log.warn("consents.reminder_days_invalid", { value: raw });
    return DEFAULT_REMINDER_DAYS;
  }
  return days;
}

export interface ConsentReminderReport {
  /** Reminders this run sent (or queued for another try). */
  reminded: number;
  /** Reminders this run claimed whose mail was refused for good. */
  failed: number;
  /** Consents whose `connection.expiring` this run recorded. */
  expiring: number;
  /** Consents whose `connection.expired` this run recorded. */
  expired: number;
}

export async function runConsentReminders(
  input: { now?: Date; days?: number } = {},
): Promise<ConsentReminderReport> {
  const now = input.now ?? new Date();
  const days = input.days ?? reminderDays();
  const report: ConsentReminderReport = { reminded: 0, failed: 0, expiring: 0, expired: 0 };
  await remindPeople(now, days, report);
  await tellPartners(now, days, report);
  return report;
}

async function remindPeople(now: Date, days: number, report: ConsentReminderReport) {
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const due = await db().connection.findMany({
      where: {
        status: "Active",
        validUntil: { gt: now, lte: new Date(now.getTime() + days * DAY_MS) },
        expiryReminderSentAt: null,
        // Someone still reads it: a key of the tenant not revoked.
        tenant: { apiKeys: { some: { revokedAt: null } } },
      },
      select: {
        id: true,
        aspspName: true,
        validUntil: true,
        tenant: { select: { user: { select: { email: true, locale: true } } } },
      },
      orderBy: { validUntil: "asc" },
      take: BATCH,
    });
    for (const connection of due) {
      // The claim: only the run whose update changed the row mails.
      const claimed = await db().connection.updateMany({
        where: { id: connection.id, expiryReminderSentAt: null },
        data: { expiryReminderSentAt: now },
      });
      if (claimed.count !== 1) continue;
      const { user } = connection.tenant;
      const mail = await renderConsentEndingMail({
        locale: isLocale(user.locale) ? user.locale : defaultLocale,
        bankName: connection.aspspName,
        validUntil: connection.validUntil,
        renewUrl: `${getEnv().issuer}${renewPath(connection.id)}`,
      });
      try {
        // A failure that may pass is queued for another try (lib/jobs/mail.ts).
        await deliverMail({ to: user.email, ...mail }, { kind: "consent_ending" });
        report.reminded += 1;
      } catch (error) {
        // The address is personal data: the log names the connection only.
        report.failed += 1;
        log.warn("mail.consent_ending_failed", {
          connectionId: connection.id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    if (due.length < BATCH) return;
  }
}

async function tellPartners(now: Date, days: number, report: ConsentReminderReport) {
  const horizon = new Date(now.getTime() + days * DAY_MS);
  // Each call claims its mark first, so a consent another run claimed is skipped.
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const ending = await db().connection.findMany({
      where: { status: "Active", validUntil: { gt: now, lte: horizon }, expiringEventAt: null },
      select: { id: true },
      orderBy: { validUntil: "asc" },
      take: BATCH,
    });
    for (const { id } of ending) {
      if (await recordConnectionExpiring(id, days, now)) report.expiring += 1;
    }
    if (ending.length < BATCH) break;
  }
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const ended = await db().connection.findMany({
      where: { status: "Active", validUntil: { lte: now }, expiredEventAt: null },
      select: { id: true },
      orderBy: { validUntil: "asc" },
      take: BATCH,
    });
    for (const { id } of ended) {
      if (await recordConnectionExpired(id, now)) report.expired += 1;
    }
    if (ended.length < BATCH) break;
  }
}
