import { getTranslations } from "next-intl/server";
import { signOutToken, type SignedInUser } from "@/lib/auth/sessions";
import { SIGN_OUT_PATH, SIGNED_OUT_FROM_DASHBOARD } from "@/lib/flow/sign-out";
import { DASHBOARD_NAV, navHref } from "./nav";

/**
 * The top of every dashboard screen: who is signed in, the partner being
 * managed with "Switch partner" when the person owns several, sign-out, and
 * the sections (DASHBOARD_NAV) once a partner is chosen.
 */
export async function DashboardBar(props: {
  user: Pick<SignedInUser, "sessionId" | "email">;
  partner: { id: string; name: string } | null;
  canSwitch: boolean;
}) {
  const t = await getTranslations("Dashboard");
  const session = await getTranslations("Session");
  return (
    <header className="dashboard-bar">
      <div className="dashboard-account">
        <p className="dashboard-title">
          <a href="/dashboard">{t("title")}</a>
        </p>
        <div className="dashboard-who">
          <span>{t("account.signedInAs", { email: props.user.email })}</span>
          {props.partner ? (
            <span className="muted">{t("account.managing", { partner: props.partner.name })}</span>
          ) : null}
          {props.canSwitch ? (
            <a href="/dashboard" data-testid="switch-partner">
              {t("account.switchPartner")}
            </a>
          ) : null}
          <form method="post" action={SIGN_OUT_PATH}>
            <input type="hidden" name="csrf" value={signOutToken(props.user)} />
            <input type="hidden" name="from" value={SIGNED_OUT_FROM_DASHBOARD} />
            <button type="submit" className="button-link">
              {session("signOut")}
            </button>
          </form>
        </div>
      </div>
      {props.partner ? (
        <nav aria-label={t("nav.label")} className="dashboard-nav">
          <ul>
            {DASHBOARD_NAV.map((item) => (
              <li key={item.key}>
                <a href={navHref(item, props.partner?.id ?? null)}>{t(`nav.${item.key}`)}</a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
    </header>
  );
}
