import { startBankConsent } from "../banking/consent-start";
import { findSignedInUser } from "../auth/sessions";
import { db } from "../db/client";
import { renewalDonePath } from "../flow/banks";
import { isLocale } from "../i18n/locales";
import { log } from "../log";
import { upstream } from "../upstream";

/**
 * Renewing a bank consent from My access or the reminder mail
 * (docs/events.md#reminders): GET /account/connections/<id>/renew sends the
 * signed-in person straight to the bank of that connection, for the same
 * kind of customer, as a partner's `renew_connection` does in the flow. The
 * bank's callback (lib/flow/banks.ts) replaces the connection's consent in
 * place: the same connection and account ids, a new `validUntil`, the
 * partner's key reading on as before. Signed out, the sign-in comes first and
 * brings the person back here; a connection of someone else, or one already
 * replaced, goes to /account.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const PSU_TYPES = ["personal", "business"] as const;

/** Where a connection's renewal starts: the reminder mail's link and My access's button. */
export const renewPath = (connectionId: string) => `/account/connections/${connectionId}/renew`;

/** Within this many days of its end, My access says how many days a consent has left. */
export const ENDS_SOON_DAYS = 14;

/**
 * How My access words a consent's end: `ended` once its day has passed (an
 * active consent not yet found expired by a sync included), otherwise the
 * days left (counted in UTC calendar days, as the dates are shown) when
 * that is within ENDS_SOON_DAYS.
 */
export function consentEnd(
  connection: { status: string; validUntil: string | Date },
  now = new Date(),
): { ended: boolean; endsInDays: number | null } {
  const end = new Date(connection.validUntil);
  if (connection.status === "Expired" || end <= now) return { ended: true, endsInDays: null };
  if (connection.status !== "Active") return { ended: false, endsInDays: null };
  const utcDay = (date: Date) =>
    Math.floor(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) / DAY_MS);
  const days = utcDay(end) - utcDay(now);
  return { ended: false, endsInDays: days <= ENDS_SOON_DAYS ? days : null };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const redirect = (location: string) =>
  new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });

export async function handleRenewConsent(request: Request): Promise<Response> {
  const connectionId = new URL(request.url).pathname.split("/")[3] ?? "";
  const user = await findSignedInUser(request);
  if (!user) {
    const returnUrl = UUID.test(connectionId) ? renewPath(connectionId) : "/account";
    return redirect(`/login?${new URLSearchParams({ returnUrl })}`);
  }
  if (!UUID.test(connectionId)) return redirect("/account");
  const connection = await db().connection.findFirst({
    where: { id: connectionId, tenant: { userId: user.userId }, status: { not: "Replaced" } },
    select: {
      id: true,
      tenantId: true,
      aspspName: true,
      aspspCountry: true,
      psuType: true,
      tenant: { select: { subject: true, sealingKey: true } },
    },
  });
  if (!connection || !connection.tenant.sealingKey) return redirect("/account");
  const aspsp = (await upstream().listBanks({ country: connection.aspspCountry })).find(
    (bank) => bank.name === connection.aspspName,
  );
  const psuType = PSU_TYPES.find((type) => type === connection.psuType) ?? "personal";
  if (!aspsp || !aspsp.psuTypes.includes(psuType)) return redirect(renewalDonePath("failed"));

  try {
    const url = await startBankConsent({
      // No flow: the callback is bound by the state alone, as for a person's own key.
      flowId: null,
      tenantId: connection.tenantId,
      aspsp,
      psuType,
      renewConnectionId: connection.id,
      language: isLocale(user.locale) ? user.locale : "en",
      // The same id at the bank as the flow gives this tenant.
      subject: connection.tenant.subject,
    });
    return redirect(url);
  } catch (error) {
    log.warn("account.renew_start_failed", { error });
    return redirect(renewalDonePath("failed"));
  }
}
