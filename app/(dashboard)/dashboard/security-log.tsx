"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { DateTime, useDateTime } from "@/app/_components/date-time";
import { DASHBOARD_CHANGED } from "./changes";

type Actor = { kind: string; email?: string | null; clientId?: string | null };
type AuditEvent = {
  id: string;
  at: string;
  type: string;
  actor: Actor;
  clientId: string | null;
  subject: string | null;
  clientIp: string | null;
  details: Record<string, unknown>;
};
type Page = { events: AuditEvent[]; next: string | null };

/** Each event type's title, by message key. */
const TITLES = {
  "api_key.issued": "apiKeyIssued",
  "api_key.revoked": "apiKeyRevoked",
  "client.created": "clientCreated",
  "client.deleted": "clientDeleted",
  "client.secret_rotated": "clientSecretRotated",
  "client.redirect_uris_changed": "clientRedirectUrisChanged",
  "partner.created": "partnerCreated",
  "partner.branding_changed": "partnerBrandingChanged",
  "partner.recipient_key_installed": "partnerRecipientKeyInstalled",
  "partner.suspended": "partnerSuspended",
  "partner.resumed": "partnerResumed",
  "partner.owner_added": "partnerOwnerAdded",
} as const;

function useTitle() {
  const t = useTranslations("Dashboard.securityLog.types");
  return (type: string) => {
    const key = (TITLES as Record<string, (typeof TITLES)[keyof typeof TITLES] | undefined>)[type];
    return key ? t(key) : type;
  };
}

/** Why an API key was revoked, by message key. */
const REVOCATION_TEXT: Record<
  string,
  "byRequest" | "byReplay" | "byStartOver" | "byUser" | "byUserDeleted"
> = {
  revocation_request: "byRequest",
  code_replay: "byReplay",
  key_start_over: "byStartOver",
  user_ended_access: "byUser",
  user_deleted: "byUserDeleted",
};

const BRANDING_FIELDS = [
  "displayName",
  "logoUrl",
  "accentColor",
  "supportUrl",
  "termsUrl",
  "privacyUrl",
  "purpose",
  "defaultLanguage",
] as const;

const text = (value: unknown) => (typeof value === "string" ? value : "");
const list = (value: unknown) => (Array.isArray(value) ? value.map(text).filter(Boolean) : []);

/**
 * The partner's security log (docs/audit-log.md): its own events, newest
 * first, 50 at a time with "older events", filtered by type. Loaded in the
 * browser, so times are shown in the person's own time zone; refreshed when
 * another panel on the page changes something.
 */
export function SecurityLog(props: { partnerId: string; types: readonly string[] }) {
  const t = useTranslations("Dashboard.securityLog");
  const title = useTitle();
  const [type, setType] = useState("");
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [status, setStatus] = useState<"loading" | "ready" | "failed">("loading");

  // Only the newest request may show its answer: a slow page for the previous
  // filter must not replace the current one.
  const latest = useRef(0);

  const fetchPage = useCallback(
    async (before: string | null): Promise<Page | null> => {
      const query = new URLSearchParams({ partner: props.partnerId });
      if (type) query.set("type", type);
      if (before) query.set("before", before);
      const response = await fetch(`/api/partner/audit-events?${query}`).catch(() => null);
      return response?.ok ? ((await response.json().catch(() => null)) as Page | null) : null;
    },
    [props.partnerId, type],
  );

  /** Fetches a page (the first, or the one older than `before`) and shows it unless a newer request started. */
  const load = useCallback(
    (before: string | null) => {
      const request = ++latest.current;
      void fetchPage(before).then((page) => {
        if (request !== latest.current) return;
        if (!page) return setStatus("failed");
        setEvents((current) => (before ? [...current, ...page.events] : page.events));
        setNext(page.next);
        setStatus("ready");
      });
    },
    [fetchPage],
  );

  const reload = (before: string | null = null) => {
    setStatus("loading");
    load(before);
  };

  useEffect(() => {
    load(null);
    const onChange = () => load(null);
    window.addEventListener(DASHBOARD_CHANGED, onChange);
    return () => window.removeEventListener(DASHBOARD_CHANGED, onChange);
  }, [load]);

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
            onChange={(event) => {
              setStatus("loading");
              setType(event.target.value);
            }}
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

function EventRow({ event }: { event: AuditEvent }) {
  const t = useTranslations("Dashboard.securityLog");
  const title = useTitle();
  return (
    <tr>
      <td data-label={t("columns.when")}>
        <DateTime value={event.at} />
      </td>
      <th scope="row" data-label={t("columns.event")}>
        {title(event.type)}
      </th>
      <td data-label={t("columns.actor")} className="wrap">
        <ActorName actor={event.actor} />
      </td>
      <td data-label={t("columns.address")} className="wrap">
        {event.clientIp ? <code>{event.clientIp}</code> : "—"}
      </td>
      <td data-label={t("columns.details")} className="wrap">
        <Details event={event} />
      </td>
    </tr>
  );
}

function ActorName({ actor }: { actor: Actor }) {
  const t = useTranslations("Dashboard.securityLog.actors");
  if (actor.kind === "user") return actor.email ? <>{actor.email}</> : <>{t("formerUser")}</>;
  if (actor.kind === "client") return <>{t("client", { clientId: actor.clientId ?? "" })}</>;
  if (actor.kind === "operator") return <>{t("operator")}</>;
  if (actor.kind === "system") return <>{t("system")}</>;
  return <>{t("anonymous")}</>;
}

function Details({ event }: { event: AuditEvent }) {
  const t = useTranslations("Dashboard.securityLog.details");
  const fieldName = useTranslations("Dashboard.securityLog.fieldNames");
  const dateTime = useDateTime();
  const { details } = event;
  const client = event.clientId ? <code>{event.clientId}</code> : null;
  const lines: ReactNode[] = [];
  switch (event.type) {
    case "api_key.issued":
    case "api_key.revoked":
      lines.push(
        t.rich("key", { prefix: event.subject ?? "", code: (chunks) => <code>{chunks}</code> }),
      );
      if (typeof details.reason === "string")
        lines.push(t(REVOCATION_TEXT[details.reason] ?? "byRequest"));
      break;
    case "client.created":
      lines.push(client, t("uris", { uris: list(details.redirectUris).join(", ") }));
      break;
    case "client.deleted":
      lines.push(client, text(details.name));
      break;
    case "client.secret_rotated":
      lines.push(
        client,
        t("previousValid", { date: dateTime(text(details.previousSecretExpiresAt)) }),
      );
      break;
    case "client.redirect_uris_changed":
      lines.push(client);
      if (list(details.added).length)
        lines.push(t("added", { uris: list(details.added).join(", ") }));
      if (list(details.removed).length) {
        lines.push(t("removed", { uris: list(details.removed).join(", ") }));
      }
      break;
    case "partner.branding_changed":
      lines.push(
        t("fields", {
          fields: list(details.fields)
            .map((field) => {
              const known = BRANDING_FIELDS.find((candidate) => candidate === field);
              return known ? fieldName(known) : field;
            })
            .join(", "),
        }),
      );
      break;
    case "partner.recipient_key_installed":
      lines.push(t("fingerprint", { fingerprint: text(details.fingerprint) }));
      if (details.previousFingerprint) {
        lines.push(t("replaces", { fingerprint: text(details.previousFingerprint) }));
      }
      break;
    case "partner.owner_added":
      lines.push(text(details.email));
      break;
    case "partner.created":
      lines.push(text(details.name));
      break;
  }
  const shown = lines.filter((line) => line !== null && line !== "");
  if (shown.length === 0) return <>—</>;
  return (
    <>
      {shown.map((line, index) => (
        <span key={index} className="log-line">
          {line}
        </span>
      ))}
    </>
  );
}
