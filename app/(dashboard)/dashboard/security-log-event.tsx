"use client";

import { useTranslations } from "next-intl";
import type { ReactNode } from "react";
import { DateTime, useDateTime } from "@/app/_components/date-time";
import { BRANDING_FIELDS } from "@/lib/partners/branding-rules";
import type { Actor, AuditEvent } from "./security-log-requests";

/**
 * One security log event as a table row (a card on a phone): when, what,
 * who, from which address, and the details its type carries.
 */

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

export function useTitle() {
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

const text = (value: unknown) => (typeof value === "string" ? value : "");
const list = (value: unknown) => (Array.isArray(value) ? value.map(text).filter(Boolean) : []);

export function EventRow({ event }: { event: AuditEvent }) {
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
