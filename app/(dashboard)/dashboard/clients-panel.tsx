"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";
import { useDateTime } from "@/app/_components/date-time";
import { announceChange } from "./changes";
import { ClientForm, type ClientValues } from "./client-form";
import { ConfirmDialog } from "./ui/confirm-dialog";
import { useProblems } from "./ui/errors";
import { FormAlert } from "./ui/form-alert";
import { send, type Answer } from "./ui/request";
import { SecretBox } from "./ui/secret-box";

type Client = {
  clientId: string;
  name: string;
  redirectUris: string[];
  createdAt: string;
  previousSecretExpiresAt: string | null;
};
type Issued = {
  clientId: string;
  clientSecret: string;
  previousSecretExpiresAt?: string | null;
  /** A new client's answer also names it and its redirect URIs. */
  name?: string;
  redirectUris?: string[];
};
/** A secret to show once, at the place of the action that made it. */
type Reveal = { at: string; name: string; rotated: boolean } & Issued;

/**
 * The partner's Connect clients: create (the secret shown once right below,
 * with a copy button), rename and edit redirect URIs, rotate the secret and
 * delete, each behind a confirmation.
 */
export function ClientsPanel(props: { partnerId: string; csrf: string; initial: Client[] }) {
  const t = useTranslations("Dashboard.clients");
  const dateTime = useDateTime();
  const problemsOf = useProblems();
  const endpoint = { partnerId: props.partnerId, csrf: props.csrf };
  const [clients, setClients] = useState(props.initial);
  const [reveal, setReveal] = useState<Reveal | null>(null);
  const [confirm, setConfirm] = useState<{ kind: "rotate" | "delete"; client: Client } | null>(
    null,
  );
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState("");
  const [actionProblems, setActionProblems] = useState<string[]>([]);

  const path = (clientId?: string, tail = "") =>
    `/api/partner/clients${clientId ? `/${encodeURIComponent(clientId)}` : ""}${tail}`;

  async function reload() {
    announceChange();
    const answer = await send<Client[]>(endpoint, path(), { method: "GET" });
    if (answer.ok && Array.isArray(answer.body)) setClients(answer.body as Client[]);
  }

  async function create(values: ClientValues): Promise<Answer> {
    const answer = await send<Issued>(endpoint, path(), { method: "POST", json: values });
    if (answer.ok) {
      const issued = answer.body;
      const name = issued.name ?? values.name.trim();
      // The new client is listed at once, from the answer; the list is read again behind it.
      const created: Client = {
        clientId: issued.clientId,
        name,
        redirectUris: issued.redirectUris ?? values.redirectUris,
        createdAt: new Date().toISOString(),
        previousSecretExpiresAt: null,
      };
      setClients((current) => [
        ...current.filter((client) => client.clientId !== created.clientId),
        created,
      ]);
      setReveal({
        at: "new",
        name,
        rotated: false,
        clientId: issued.clientId,
        clientSecret: issued.clientSecret,
      });
      setStatus("");
      setActionProblems([]);
      void reload();
    }
    return answer;
  }

  async function update(clientId: string, values: ClientValues): Promise<Answer> {
    const answer = await send(endpoint, path(clientId), { method: "PATCH", json: values });
    if (answer.ok) await reload();
    return answer;
  }

  async function confirmed() {
    if (!confirm) return;
    const { kind, client } = confirm;
    setBusy(true);
    setActionProblems([]);
    const answer =
      kind === "rotate"
        ? await send<Issued>(endpoint, path(client.clientId, "/rotate-secret"), { method: "POST" })
        : await send(endpoint, path(client.clientId), { method: "DELETE" });
    setBusy(false);
    setConfirm(null);
    if (!answer.ok) {
      setActionProblems(problemsOf("client", answer).general);
      return;
    }
    if (kind === "rotate") {
      const issued = answer.body as unknown as Omit<Issued, "clientId">;
      setReveal({
        at: client.clientId,
        name: client.name,
        rotated: true,
        clientId: client.clientId,
        ...issued,
      });
    } else {
      if (reveal?.at === client.clientId) setReveal(null);
      setStatus(t("deleted", { name: client.name }));
    }
    await reload();
  }

  const secretBox = (at: string) =>
    reveal && reveal.at === at ? (
      <SecretBox
        title={
          reveal.rotated
            ? t("rotatedTitle", { name: reveal.name })
            : t("secretTitle", { name: reveal.name })
        }
        items={[
          { id: `${at}-id`, label: t("clientId"), value: reveal.clientId, testId: "client-id" },
          {
            id: `${at}-secret`,
            label: t("clientSecret"),
            value: reveal.clientSecret,
            testId: "client-secret",
          },
        ]}
        onDone={() => setReveal(null)}
      >
        {reveal.previousSecretExpiresAt ? (
          <p className="small">
            {t("previousValidUntil", { date: dateTime(reveal.previousSecretExpiresAt) })}
          </p>
        ) : null}
      </SecretBox>
    ) : null;

  return (
    <section id="clients" className="card stack" aria-labelledby="clients-title">
      <h2 id="clients-title">{t("title")}</h2>
      <p className="muted">{t("intro")}</p>
      <FormAlert items={actionProblems} />
      <p role="status" className="save-status">
        {status}
      </p>
      {clients.length === 0 ? <p className="muted">{t("none")}</p> : null}
      {clients.map((client) => (
        <article key={client.clientId} className="client stack" aria-label={client.name}>
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
            onSubmit={(values) => update(client.clientId, values)}
          >
            <button
              type="button"
              className="button-secondary"
              onClick={() => setConfirm({ kind: "rotate", client })}
            >
              {t("rotate")}
            </button>
            <button
              type="button"
              className="button-link danger-link"
              onClick={() => setConfirm({ kind: "delete", client })}
            >
              {t("delete")}
            </button>
          </ClientForm>
          {secretBox(client.clientId)}
        </article>
      ))}
      <div className="client stack">
        <h3 id="new-client-title">{t("newTitle")}</h3>
        <ClientForm
          prefix="new"
          initial={null}
          submitLabel={t("create")}
          busyLabel={t("creating")}
          resetAfter
          onSubmit={create}
        />
        {secretBox("new")}
      </div>
      <ConfirmDialog
        open={confirm !== null}
        title={
          confirm?.kind === "delete"
            ? t("deleteTitle", { name: confirm.client.name })
            : t("rotateTitle", { name: confirm?.client.name ?? "" })
        }
        confirmLabel={confirm?.kind === "delete" ? t("delete") : t("rotate")}
        busyLabel={confirm?.kind === "delete" ? t("deleting") : t("rotating")}
        busy={busy}
        danger={confirm?.kind === "delete"}
        onConfirm={() => void confirmed()}
        onClose={() => setConfirm(null)}
      >
        <p>{confirm?.kind === "delete" ? t("deleteBody") : t("rotateBody")}</p>
      </ConfirmDialog>
    </section>
  );
}
