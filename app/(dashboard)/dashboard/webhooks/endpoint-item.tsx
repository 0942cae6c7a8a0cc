"use client";

import { useTranslations } from "next-intl";
import { useState, type ReactNode } from "react";
import { useDateTime } from "@/app/_components/date-time";
import { BusyButton } from "../ui/busy-button";
import type { Answer } from "../ui/request";
import { Deliveries } from "./deliveries";
import { EndpointForm } from "./endpoint-form";
import type { EndpointValues, WebhookEndpoint, WebhooksApi } from "./transport";

/**
 * One endpoint: its address, whether it is sending (and why not), the events
 * it receives, its actions (edit, enable or disable, rotate, delete) and its
 * recent deliveries. A secret just made for it is shown in `secret`.
 */
export function EndpointItem(props: {
  api: WebhooksApi;
  endpoint: WebhookEndpoint;
  secret: ReactNode;
  onUpdate: (changes: Partial<EndpointValues> & { enabled?: boolean }) => Promise<Answer>;
  onRotate: () => void;
  onDelete: () => void;
}) {
  const t = useTranslations("Dashboard.webhooks");
  const dateTime = useDateTime();
  const { endpoint } = props;
  const [editing, setEditing] = useState(false);
  const [toggling, setToggling] = useState(false);

  async function toggle() {
    if (toggling) return;
    setToggling(true);
    await props.onUpdate({ enabled: !endpoint.enabled });
    setToggling(false);
  }

  const disabledNote =
    endpoint.disabledReason === "failing" ? t("disabledFailing") : t("disabledPartner");

  return (
    <article className="client stack webhook-endpoint" aria-label={endpoint.url}>
      <div className="webhook-endpoint-head">
        <h3 className="client-name webhook-url">
          <code>{endpoint.url}</code>
        </h3>
        <span
          className={endpoint.enabled ? "badge badge-success" : "badge badge-warn"}
          data-testid="webhook-state"
        >
          {endpoint.enabled ? t("enabled") : t("disabled")}
        </span>
      </div>
      {!endpoint.enabled ? (
        <p className="small webhook-disabled-note">
          {disabledNote}
          {endpoint.disabledAt ? ` ${t("since", { date: dateTime(endpoint.disabledAt) })}` : ""}
        </p>
      ) : null}
      <ul className="list-plain webhook-chips" aria-label={t("eventTypes")}>
        {endpoint.eventTypes.map((type) => (
          <li key={type}>
            <code className="webhook-chip">{type}</code>
          </li>
        ))}
      </ul>
      <p className="small muted">
        {t("added", { date: dateTime(endpoint.createdAt) })}
        {endpoint.previousSecretExpiresAt
          ? ` · ${t("previousValidUntil", { date: dateTime(endpoint.previousSecretExpiresAt) })}`
          : ""}
      </p>
      {props.secret}
      {editing ? (
        <EndpointForm
          prefix={endpoint.id}
          initial={{ url: endpoint.url, eventTypes: endpoint.eventTypes }}
          submitLabel={t("save")}
          busyLabel={t("saving")}
          onSubmit={async (values) => {
            const answer = await props.onUpdate(values);
            if (answer.ok) setEditing(false);
            return answer;
          }}
        >
          <button type="button" className="button-secondary" onClick={() => setEditing(false)}>
            {t("cancelEdit")}
          </button>
        </EndpointForm>
      ) : (
        <div className="actions">
          <button type="button" className="button-secondary" onClick={() => setEditing(true)}>
            {t("edit")}
          </button>
          <BusyButton
            className="button-secondary"
            busy={toggling}
            busyLabel={endpoint.enabled ? t("disabling") : t("enabling")}
            onClick={() => void toggle()}
          >
            {endpoint.enabled ? t("disable") : t("enable")}
          </BusyButton>
          <button type="button" className="button-secondary" onClick={props.onRotate}>
            {t("rotate")}
          </button>
          <button type="button" className="button-link danger-link" onClick={props.onDelete}>
            {t("delete")}
          </button>
        </div>
      )}
      <Deliveries api={props.api} endpointId={endpoint.id} label={endpoint.url} />
    </article>
  );
}
