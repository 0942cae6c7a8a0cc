import { getTranslations } from "next-intl/server";
import { SERVICE_NAME } from "../_components/flow-shell";

/**
 * The sign-in of the partner dashboard (/login?returnUrl=/dashboard…) says
 * it is the partners' door, and sends a person who came for their own data
 * to /account, where they manage the access they gave.
 */

/** Whether a sign-in leads to the partner dashboard (a same-site path, as /login keeps it). */
export function isDashboardSignIn(returnUrl: string): boolean {
  return /^\/dashboard(?:[/?#]|$)/.test(returnUrl);
}

export async function dashboardSignInTitle(): Promise<string> {
  return (await getTranslations("DashboardSignIn"))("title");
}

export async function DashboardSignInIntro() {
  const t = await getTranslations("DashboardSignIn");
  return <p>{t("intro", { service: SERVICE_NAME })}</p>;
}

export async function DashboardSignInOwnData() {
  const t = await getTranslations("DashboardSignIn");
  return (
    <p className="small muted" data-testid="own-data">
      {t("ownData")} <a href="/account">{t("manageAccess")}</a>
    </p>
  );
}
