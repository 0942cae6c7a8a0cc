"use client";

import { useTranslations } from "next-intl";
import type { ReactNode } from "react";
import { useDateTime } from "@/app/_components/date-time";
import { ClientForm, type ClientValues } from "./client-form";
import type { Client } from "./clients-requests";
import type { Answer } from "./ui/request";

/**
 * One client: its name and ID, until when a rotated secret's predecessor
 * still works, its form with rotate and delete, and `secret` below it.
 */
export function ClientItem(props: {
  client: Client;
  onSave: (values: ClientValues) => Promise<Answer>;
  onRotate: () => void;
  onDelete: () => void;
  secret: ReactNode;
}) {
  const t = useTranslations("Dashboard.clients");
  const dateTime = useDateTime();
  const { client } = props;
  return (
    <article className="client stack" aria-label={client.name}>
      <h3 className="client-name">{client.name}</h3>
      <p className="small">
        <span className="muted">{t("clientId")}:</span> <code>{client.clientId}</code>
      </p>
      {client.previousSecretExpiresAt ? (
        <p className="muted small">
          {t("previousValidUntil", { date: dateTime(client.previousSecretExpiresAt) })}
        </p>
      ) : null}
      <ClientForm
        prefix={client.clientId}
        initial={client}
        submitLabel={t("save")}
        busyLabel={t("saving")}
        doneLabel={t("saved")}
        onSubmit={props.onSave}
      >
        <button type="button" className="button-secondary" onClick={props.onRotate}>
          {t("rotate")}
        </button>
        <button type="button" className="button-link danger-link" onClick={props.onDelete}>
          {t("delete")}
        </button>
      </ClientForm>
      {props.secret}
    </article>
  );
}
