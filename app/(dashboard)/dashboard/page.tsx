import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { PARTNER_VISIBLE_TYPES } from "@/lib/audit/events";
import { findSessionUser, sessionCookieName } from "@/lib/auth/sessions";
import { getEnv } from "@/lib/env";
import { ClientMessages } from "@/lib/i18n/client-messages";
import { ownedPartners, sessionCsrfToken } from "@/lib/partners/owner-session";
import { findPartner, toPartnerWire } from "@/lib/partners/partner-api";
import { listPartnerClients } from "@/lib/partners/client-api";
import { listPartnerEndpoints } from "@/lib/partners/webhook-api";
import { BrandingEditor } from "./branding-editor";
import { ClientsPanel } from "./clients-panel";
import { DashboardBar } from "./dashboard-bar";
import { RecipientKeyPanel } from "./recipient-key-panel";
import { SecurityLog } from "./security-log";
import { SignupForm } from "./signup-form";
import { WebhooksPanel } from "./webhooks/webhooks-panel";

/**
 * The partner dashboard: signed in with the same login as the flow. A person
 * without a partner creates one (when the operator allows it) or is told who
 * adds them; an owner of several picks one. Every screen shows who is signed
 * in, with sign-out and, for owners of several partners, "Switch partner".
 */
export default async function DashboardPage({
  searchParams,
}: {
  searchParams: Promise<{ partner?: string }>;
}) {
  const store = await cookies();
  const user = await findSessionUser(store.get(sessionCookieName())?.value);
  if (!user) redirect(`/login?${new URLSearchParams({ returnUrl: "/dashboard" })}`);
  const t = await getTranslations("Dashboard");
  const owned = await ownedPartners(user.userId);
  const { partner: asked } = await searchParams;
  const chosen = owned.length === 1 ? owned[0] : owned.find((partner) => partner.id === asked);
  const canSwitch = owned.length > 1;

  if (!chosen) {
    return (
      <main id="main" className="page dashboard">
        <DashboardBar user={user} partner={null} canSwitch={false} />
        {owned.length > 0 ? (
          <nav aria-labelledby="choose-title" className="card stack">
            <h1 id="choose-title">{t("choosePartner")}</h1>
            <p className="muted">{t("chooseIntro")}</p>
            <ul className="stack list-plain">
              {owned.map((partner) => (
                <li key={partner.id}>
                  <a className="button-secondary" href={`/dashboard?partner=${partner.id}`}>
                    {partner.displayName || partner.name}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        ) : getEnv().partnerSelfSignup ? (
          <section aria-labelledby="signup-title" className="stack">
            <h1 id="signup-title">{t("signup.title")}</h1>
            <p>{t("signup.intro", { email: user.email })}</p>
            <ClientMessages namespaces={["Dashboard"]}>
              <SignupForm csrf={sessionCsrfToken(user)} />
            </ClientMessages>
          </section>
        ) : (
          <section aria-labelledby="closed-title" className="card stack">
            <h1 id="closed-title">{t("closed.title")}</h1>
            <p>{t("closed.body", { email: user.email })}</p>
            <pre className="command" data-testid="add-owner-command">
              <code>{`npm run admin -- partner add-owner --partner <partner-id> --email ${user.email}`}</code>
            </pre>
            <p className="muted">{t("closed.after")}</p>
          </section>
        )}
      </main>
    );
  }

  const partner = await findPartner(chosen.id);
  if (!partner) redirect("/dashboard");
  const wire = toPartnerWire(partner);
  const csrf = sessionCsrfToken(user);
  return (
    <main id="main" className="page dashboard">
      <DashboardBar user={user} partner={partner} canSwitch={canSwitch} />
      <h1 className="visually-hidden">{t("title")}</h1>
      {/* The branding editor previews the consent screen in its own words. */}
      <ClientMessages namespaces={["Dashboard", "Consent"]}>
        <BrandingEditor
          partnerId={partner.id}
          partnerName={partner.name}
          registeredDomain={partner.registeredDomain}
          initial={wire.branding}
          csrf={csrf}
        />
        <ClientsPanel
          partnerId={partner.id}
          csrf={csrf}
          initial={await listPartnerClients(partner.id)}
        />
        <WebhooksPanel
          partnerId={partner.id}
          csrf={csrf}
          initial={await listPartnerEndpoints(partner.id)}
        />
        <RecipientKeyPanel
          partnerId={partner.id}
          partnerName={partner.name}
          csrf={csrf}
          installed={
            partner.recipientPublicKey && partner.recipientKeyFingerprint
              ? {
                  fingerprint: partner.recipientKeyFingerprint,
                  installedAt: partner.recipientKeyInstalledAt?.toISOString() ?? null,
                }
              : null
          }
        />
        <SecurityLog partnerId={partner.id} types={PARTNER_VISIBLE_TYPES} />
      </ClientMessages>
    </main>
  );
}
