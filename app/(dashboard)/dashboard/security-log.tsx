"use client";

import { useTranslations } from "next-intl";
import { EventRow, useTitle } from "./security-log-event";
import { useSecurityLog } from "./use-security-log";

/**
 * The partner's security log (docs/audit-log.md): its own events, newest
 * first, 50 at a time with "older events", filtered by type. Loaded in the
 * browser, so times are shown in the person's own time zone; refreshed when
 * another panel on the page changes something.
 */
export function SecurityLog(props: { partnerId: string; types: readonly string[] }) {
  const t = useTranslations("Dashboard.securityLog");
  const title = useTitle();
  const { type, events, next, status, reload, filter } = useSecurityLog(props.partnerId);

  return (
    <section id="security-log" className="card stack" aria-labelledby="security-log-title">
      <h2 id="security-log-title">{t("title")}</h2>
      <p className="muted small">{t("intro")}</p>
      <p className="muted small">{t("addressNote")}</p>
      <div className="log-controls">
        <div className="field">
          <label htmlFor="security-log-type">{t("show")}</label>
          <select
            id="security-log-type"
            value={type}
            onChange={(event) => filter(event.target.value)}
          >
            <option value="">{t("allTypes")}</option>
            {props.types.map((candidate) => (
              <option key={candidate} value={candidate}>
                {title(candidate)}
              </option>
            ))}
          </select>
        </div>
        <button type="button" className="button-secondary" onClick={() => reload()}>
          {t("refresh")}
        </button>
      </div>
      <p role="status" className="muted small">
        {status === "loading" ? t("loading") : null}
        {status === "failed" ? t("failed") : null}
        {status === "ready" && events.length === 0 ? t("none") : null}
      </p>
      {events.length > 0 ? (
        <table className="log-table" data-testid="security-log">
          <thead>
            <tr>
              <th scope="col">{t("columns.when")}</th>
              <th scope="col">{t("columns.event")}</th>
              <th scope="col">{t("columns.actor")}</th>
              <th scope="col">{t("columns.address")}</th>
              <th scope="col">{t("columns.details")}</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <EventRow key={event.id} event={event} />
            ))}
          </tbody>
        </table>
      ) : null}
      {next ? (
        <p>
          <button
            type="button"
            className="button-secondary"
            disabled={status === "loading"}
            onClick={() => reload(next)}
          >
            {t("older")}
          </button>
        </p>
      ) : null}
    </section>
  );
}
