import { db } from "../db/client";
import { getEnv } from "../env";
import { defaultLocale, isLocale } from "../i18n/locales";
import { deliverMail } from "../jobs/mail";
import { log } from "../log";
import { renderWebhookDisabledMail } from "../mail/templates/webhook-disabled";

/**
 * Tells each owner of the endpoint's partner, in the language they last
 * chose (English when none), that the endpoint was turned off because its
 * deliveries kept failing. A mail that cannot be sent is logged; the
 * endpoint stays off either way.
 */
export async function mailEndpointDisabled(endpointId: string): Promise<void> {
  const endpoint = await db().webhookEndpoint.findUnique({
    where: { id: endpointId },
    select: {
      url: true,
      partner: {
        select: {
          name: true,
          displayName: true,
          owners: { select: { user: { select: { email: true, locale: true } } } },
        },
      },
    },
  });
  if (!endpoint) return;
  const dashboardUrl = `${getEnv().issuer}/dashboard/webhooks`;
  for (const { user } of endpoint.partner.owners) {
    try {
      const mail = await renderWebhookDisabledMail({
        locale: isLocale(user.locale) ? user.locale : defaultLocale,
        partnerName: endpoint.partner.displayName ?? endpoint.partner.name,
        url: endpoint.url,
        dashboardUrl,
      });
      // A failure that may pass is queued for another try (lib/jobs/mail.ts).
      await deliverMail({ to: user.email, ...mail }, { kind: "webhook_disabled" });
    } catch (error) {
      // The address is personal data: the log names the endpoint only.
      log.warn("mail.webhook_disabled_failed", {
        endpoint_id: endpointId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
