import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { SignOutForm } from "@/app/_components/sign-out-form";
import { PARTNER_VISIBLE_TYPES } from "@/lib/audit/events";
import { findSessionUser, sessionCookieName } from "@/lib/auth/sessions";
import { SIGNED_OUT_FROM_DASHBOARD } from "@/lib/flow/sign-out";
import { ownedPartners, sessionCsrfToken } from "@/lib/partners/owner-session";
import { findPartner, toPartnerWire } from "@/lib/partners/partner-api";
import { listPartnerClients } from "@/lib/partners/client-api";
import { DashboardNav } from "./analytics/dashboard-nav";
import { BrandingEditor } from "./branding-editor";
import { ClientsPanel } from "./clients-panel";
import { RecipientKeyPanel } from "./recipient-key-panel";
import { SecurityLog } from "./security-log";

/**
 * The partner dashboard (issue: partners manage themselves): signed in with
 * the same login as the flow; an owner of several partners picks one. Every
 * state shows who is signed in, with sign-out.
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

  if (!chosen) {
    return (
      <main id="main" className="page dashboard">
        <h1>{t("title")}</h1>
        <SignOutForm user={user} from={SIGNED_OUT_FROM_DASHBOARD} />
        {owned.length === 0 ? (
          <p className="notice">{t("noPartner", { email: user.email })}</p>
        ) : (
          <nav aria-labelledby="choose-title" className="card">
            <h2 id="choose-title">{t("choosePartner")}</h2>
            <ul className="stack">
              {owned.map((partner) => (
                <li key={partner.id}>
                  <a href={`/dashboard?partner=${partner.id}`}>
                    {partner.displayName || partner.name}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
      </main>
    );
  }

  const partner = await findPartner(chosen.id);
  if (!partner) redirect("/dashboard");
  const wire = toPartnerWire(partner);
  return (
    <main id="main" className="page dashboard">
      <h1>{t("title")}</h1>
      <SignOutForm
        user={user}
        from={SIGNED_OUT_FROM_DASHBOARD}
        text={t("signedInAs", { email: user.email, partner: partner.name })}
      />
      <DashboardNav partnerId={owned.length > 1 ? partner.id : null} />
      <BrandingEditor
        partnerId={partner.id}
        partnerName={partner.name}
        registeredDomain={partner.registeredDomain}
        initial={wire.branding}
        csrf={sessionCsrfToken(user)}
      />
      <ClientsPanel
        partnerId={partner.id}
        csrf={sessionCsrfToken(user)}
        initial={await listPartnerClients(partner.id)}
      />
      <RecipientKeyPanel
        partnerId={partner.id}
        csrf={sessionCsrfToken(user)}
        fingerprint={partner.recipientKeyFingerprint}
      />
      <SecurityLog partnerId={partner.id} types={PARTNER_VISIBLE_TYPES} />
    </main>
  );
}
