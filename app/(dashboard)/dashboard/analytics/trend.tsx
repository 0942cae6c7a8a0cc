import { getTranslations } from "next-intl/server";
import type { FlowAnalytics } from "@/lib/analytics/query";
import type { Formats } from "./format";
import { TrendChart } from "./trend-chart";

/**
 * Started and approved flows over the period, per UTC day (per UTC hour for
 * the last 24 hours): the chart, its legend, and every point in a table that
 * opens without JavaScript.
 */
export async function Trend({ analytics, format }: { analytics: FlowAnalytics; format: Formats }) {
  const t = await getTranslations("Analytics");
  const hourly = analytics.window.unit === "hour";
  const label = (start: Date) => (hourly ? format.hour(start) : format.day(start));
  const started = analytics.series.map((entry) => entry.counts.started);
  const approved = analytics.series.map((entry) => entry.counts.approved);
  const firstStart = analytics.series[0]?.start ?? analytics.window.from;
  const lastStart = analytics.series.at(-1)?.start ?? analytics.window.from;
  const description = t(hourly ? "trendDescHour" : "trendDescDay", {
    from: label(firstStart),
    to: label(lastStart),
    started: format.count(analytics.totals.started),
    approved: format.count(analytics.totals.approved),
    max: format.count(Math.max(0, ...started)),
  });
  return (
    <section className="card" aria-labelledby="trend-heading">
      <h2 id="trend-heading">{t(hourly ? "trendTitleHour" : "trendTitleDay")}</h2>
      <TrendChart
        id="trend"
        title={t(hourly ? "trendTitleHour" : "trendTitleDay")}
        description={description}
        labels={analytics.series.map((entry) => label(entry.start))}
        formatCount={format.count}
        series={[
          { label: t("steps.started"), values: started, className: "series-started" },
          { label: t("steps.approved"), values: approved, className: "series-approved" },
        ]}
      />
      <ul className="chart-legend" aria-hidden="true">
        <li className="series-started">{t("steps.started")}</li>
        <li className="series-approved">{t("steps.approved")}</li>
      </ul>
      <details>
        <summary>{t("showTable")}</summary>
        <div className="table-scroll">
          <table className="analytics-table">
            <thead>
              <tr>
                <th scope="col">{t(hourly ? "hourHeader" : "dayHeader")}</th>
                <th scope="col">{t("steps.started")}</th>
                <th scope="col">{t("steps.approved")}</th>
              </tr>
            </thead>
            <tbody>
              {analytics.series.map((entry) => (
                <tr key={entry.start.toISOString()}>
                  <th scope="row">{label(entry.start)}</th>
                  <td>{format.count(entry.counts.started)}</td>
                  <td>{format.count(entry.counts.approved)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}
