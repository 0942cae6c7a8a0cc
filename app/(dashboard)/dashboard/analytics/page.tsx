import { cookies } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { END_STEPS, FAILURE_REASONS, FUNNEL_STEPS } from "@/lib/analytics/events";
import { DEFAULT_PERIOD, parsePeriod, PERIODS, type Period } from "@/lib/analytics/period";
import { listAnalyticsClients, readFlowAnalytics } from "@/lib/analytics/query";
import { findSessionUser, sessionCookieName } from "@/lib/auth/sessions";
import { ownedPartners } from "@/lib/partners/owner-session";
import { DashboardBar } from "../dashboard-bar";
import { BreakdownTable } from "./breakdown-table";
import { formatsFor } from "./format";
import { FunnelChart } from "./funnel-chart";
import { Trend } from "./trend";
import "./analytics.css";

/**
 * Flow analytics on the partner dashboard (docs/analytics.md): the funnel,
 * the daily (or hourly) trend, cancellations by step, failures by reason and
 * the median time to approve, for all the partner's clients or one. Rendered
 * on the server; the period and the client are chosen with links and a GET
 * form, so it works without JavaScript.
 */

type Search = Record<string, string | string[] | undefined>;
const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export const dynamic = "force-dynamic";

export default async function AnalyticsPage({ searchParams }: { searchParams: Promise<Search> }) {
  const store = await cookies();
  const user = await findSessionUser(store.get(sessionCookieName())?.value);
  if (!user) redirect(`/login?${new URLSearchParams({ returnUrl: "/dashboard/analytics" })}`);
  const search = await searchParams;
  const owned = await ownedPartners(user.userId);
  const asked = first(search.partner);
  const partner = owned.length === 1 ? owned[0] : owned.find((p) => p.id === asked);
  // Choosing among several partners (or having none) is the dashboard's.
  if (!partner) redirect("/dashboard");

  const period: Period = parsePeriod(first(search.period)) ?? DEFAULT_PERIOD;
  const clients = await listAnalyticsClients(partner.id);
  const clientId = first(search.client) || null;
  if (clientId !== null && !clients.some((client) => client.id === clientId)) notFound();
  const analytics = await readFlowAnalytics(partner.id, { period, clientId });

  const t = await getTranslations("Analytics");
  const format = formatsFor(await getLocale());
  // Every link keeps the partner shown, as the dashboard's navigation does.
  const href = (next: Record<string, string>) =>
    `/dashboard/analytics?${new URLSearchParams({
      partner: partner.id,
      period,
      ...(clientId ? { client: clientId } : {}),
      ...next,
    })}`;

  const { totals } = analytics;
  const funnel = FUNNEL_STEPS.map((step) => ({
    label: t(`steps.${step}`),
    count: totals[step],
    figure: `${format.count(totals[step])} · ${format.share(totals[step], totals.started)}`,
  }));
  const median = analytics.approvalTime.medianSeconds;
  const clientName = (client: (typeof clients)[number]) =>
    client.deleted ? t("deletedClient", { id: client.id }) : `${client.name || client.id}`;

  return (
    <main id="main" className="page dashboard analytics">
      <DashboardBar user={user} partner={partner} canSwitch={owned.length > 1} />
      <h1>{t("title")}</h1>
      <p className="hint">{t("intro")}</p>

      <section className="card analytics-filters" aria-labelledby="filters-title">
        <h2 id="filters-title">{t("filtersTitle")}</h2>
        <nav aria-label={t("periodLabel")} className="period-picker">
          {PERIODS.map((choice) => (
            <a
              key={choice}
              href={href({ period: choice })}
              aria-current={choice === period ? "page" : undefined}
            >
              {t(`periods.${choice}`)}
            </a>
          ))}
        </nav>
        <form method="get" action="/dashboard/analytics" className="client-picker">
          <input type="hidden" name="partner" value={partner.id} />
          <input type="hidden" name="period" value={period} />
          <div className="field">
            <label className="label" htmlFor="client">
              {t("clientLabel")}
            </label>
            <select id="client" name="client" defaultValue={clientId ?? ""}>
              <option value="">{t("allClients")}</option>
              {clients.map((client) => (
                <option key={client.id} value={client.id}>
                  {clientName(client)}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button button-secondary">
            {t("show")}
          </button>
        </form>
      </section>

      <dl className="analytics-stats" aria-label={t("statsLabel")}>
        <div>
          <dt>{t("steps.started")}</dt>
          <dd data-stat="started">{format.count(totals.started)}</dd>
        </div>
        <div>
          <dt>{t("steps.approved")}</dt>
          <dd data-stat="approved">{format.count(totals.approved)}</dd>
        </div>
        <div>
          <dt>{t("conversion")}</dt>
          <dd data-stat="conversion">{format.share(totals.approved, totals.started)}</dd>
        </div>
        <div>
          <dt>{t("medianTime")}</dt>
          <dd data-stat="median">{median === null ? "–" : format.duration(median)}</dd>
        </div>
      </dl>
      {totals.started === 0 ? <p className="notice">{t("empty")}</p> : null}

      <div className="analytics-grid">
        <section className="card" aria-labelledby="funnel-heading">
          <h2 id="funnel-heading">{t("funnelTitle")}</h2>
          <FunnelChart
            id="funnel"
            title={t("funnelTitle")}
            description={funnel.map((row) => `${row.label}: ${row.figure}`).join("; ")}
            rows={funnel}
          />
          <p className="hint">{t("funnelHint")}</p>
        </section>
        <Trend analytics={analytics} format={format} />
      </div>

      <div className="analytics-grid">
        <BreakdownTable
          id="cancelled"
          title={t("cancelledTitle")}
          header={t("stepHeader")}
          countHeader={t("countHeader")}
          rows={END_STEPS.map((step) => ({
            key: step,
            label: t(`endSteps.${step}`),
            count: analytics.cancelled[step],
          }))}
          total={totals.cancelled}
          format={format}
        />
        <BreakdownTable
          id="failed"
          title={t("failedTitle")}
          header={t("reasonHeader")}
          countHeader={t("countHeader")}
          rows={FAILURE_REASONS.map((reason) => ({
            key: reason,
            label: t(`reasons.${reason}`),
            count: analytics.failed[reason],
          }))}
          total={totals.failed}
          format={format}
        />
      </div>
      <p className="hint">{t("precision")}</p>
    </main>
  );
}
