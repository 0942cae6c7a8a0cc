"use client";

import { useTranslations } from "next-intl";
import { ClientConfirm } from "./client-confirm";
import { ClientForm } from "./client-form";
import { ClientItem } from "./client-item";
import { ClientSecret } from "./client-secret";
import type { Client } from "./clients-requests";
import { FormAlert } from "./ui/form-alert";
import { useClients } from "./use-clients";

/**
 * The partner's Connect clients: create (the secret shown once right below,
 * with a copy button), rename and edit redirect URIs, rotate the secret and
 * delete, each behind a confirmation.
 */
export function ClientsPanel(props: { partnerId: string; csrf: string; initial: Client[] }) {
  const t = useTranslations("Dashboard.clients");
  const clients = useClients({ partnerId: props.partnerId, csrf: props.csrf }, props.initial);
  const secret = (at: string) => (
    <ClientSecret at={at} reveal={clients.reveal} onDone={clients.dismiss} />
  );

  return (
    <section id="clients" className="card stack" aria-labelledby="clients-title">
      <h2 id="clients-title">{t("title")}</h2>
      <p className="muted">{t("intro")}</p>
      <FormAlert items={clients.actionProblems} />
      <p role="status" className="save-status">
        {clients.status}
      </p>
      {clients.clients.length === 0 ? <p className="muted">{t("none")}</p> : null}
      {clients.clients.map((client) => (
        <ClientItem
          key={client.clientId}
          client={client}
          onSave={(values) => clients.update(client.clientId, values)}
          onRotate={() => clients.ask({ kind: "rotate", client })}
          onDelete={() => clients.ask({ kind: "delete", client })}
          secret={secret(client.clientId)}
        />
      ))}
      <div className="client stack">
        <h3 id="new-client-title">{t("newTitle")}</h3>
        <ClientForm
          prefix="new"
          initial={null}
          submitLabel={t("create")}
          busyLabel={t("creating")}
          resetAfter
          onSubmit={clients.create}
        />
        {secret("new")}
      </div>
      <ClientConfirm
        action={clients.confirm}
        busy={clients.busy}
        onConfirm={() => void clients.confirmed()}
        onClose={clients.cancel}
      />
    </section>
  );
}
