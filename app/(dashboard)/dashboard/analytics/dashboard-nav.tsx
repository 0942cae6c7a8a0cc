import { getTranslations } from "next-intl/server";

/** The dashboard's way to its other pages: the flow analytics. */
export async function DashboardNav({ partnerId }: { partnerId: string | null }) {
  const t = await getTranslations("Analytics");
  const query = partnerId ? `?${new URLSearchParams({ partner: partnerId })}` : "";
  return (
    <nav aria-label={t("navLabel")} className="dashboard-nav">
      <a href={`/dashboard/analytics${query}`}>{t("navLink")}</a>
    </nav>
  );
}
