"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { announceChange } from "./changes";

type Client = {
  clientId: string;
  name: string;
  redirectUris: string[];
  createdAt: string;
  previousSecretExpiresAt: string | null;
};
type Violation = { field: string; message: string };
type Secret = { clientId: string; clientSecret: string; previousSecretExpiresAt?: string | null };

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * The partner's Connect clients: create (the secret shown once, with a copy
 * button), rename, edit redirect URIs, rotate the secret (the previous one
 * stays valid 24 hours), delete.
 */
export function ClientsPanel(props: { partnerId: string; csrf: string; initial: Client[] }) {
  const t = useTranslations("Dashboard.clients");
  const [clients, setClients] = useState(props.initial);
  const [secret, setSecret] = useState<Secret | null>(null);
  const [violations, setViolations] = useState<Record<string, Violation[]>>({});
  const query = `?partner=${encodeURIComponent(props.partnerId)}`;

  async function call(path: string, method: string, body?: unknown) {
    const response = await fetch(`/api/partner/clients${path}${query}`, {
      method,
      headers: { "X-CSRF-Token": props.csrf, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = response.status === 204 ? {} : await response.json().catch(() => ({}));
    return { ok: response.ok, json };
  }

  async function reload() {
    announceChange();
    const { ok, json } = await call("", "GET");
    if (ok) setClients(json as Client[]);
  }

  function failed(
    key: string,
    json: { violations?: Violation[]; error?: string; error_description?: string },
  ) {
    const message =
      json.error === "recipient_key_required"
        ? t("recipientKeyRequired")
        : (json.error_description ?? t("failed"));
    setViolations((current) => ({
      ...current,
      [key]: json.violations ?? [{ field: "body", message }],
    }));
  }

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const { ok, json } = await call("", "POST", {
      name: String(form.get("name") ?? ""),
      redirectUris: lines(String(form.get("redirectUris") ?? "")),
    });
    if (!ok) return failed("new", json);
    setViolations((current) => ({ ...current, new: [] }));
    setSecret(json as Secret);
    event.currentTarget?.reset();
    await reload();
  }

  async function update(clientId: string, event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const { ok, json } = await call(`/${encodeURIComponent(clientId)}`, "PATCH", {
      name: String(form.get("name") ?? ""),
      redirectUris: lines(String(form.get("redirectUris") ?? "")),
    });
    if (!ok) return failed(clientId, json);
    setViolations((current) => ({ ...current, [clientId]: [] }));
    await reload();
  }

  async function rotate(clientId: string) {
    const { ok, json } = await call(`/${encodeURIComponent(clientId)}/rotate-secret`, "POST");
    if (!ok) return failed(clientId, json);
    setSecret({ clientId, ...(json as Omit<Secret, "clientId">) });
    await reload();
  }

  async function remove(clientId: string) {
    if (!window.confirm(t("confirmDelete", { clientId }))) return;
    const { ok, json } = await call(`/${encodeURIComponent(clientId)}`, "DELETE");
    if (!ok) return failed(clientId, json);
    await reload();
  }

  return (
    <section className="card stack" aria-labelledby="clients-title">
      <h2 id="clients-title">{t("title")}</h2>
      {secret ? <SecretOnce secret={secret} onDone={() => setSecret(null)} /> : null}
      {clients.length === 0 ? <p className="muted">{t("none")}</p> : null}
      {clients.map((client) => (
        <form
          key={client.clientId}
          className="stack client"
          onSubmit={(event) => void update(client.clientId, event)}
          aria-label={client.name}
        >
          <p>
            <code>{client.clientId}</code>
          </p>
          <ClientFields prefix={client.clientId} client={client} />
          {client.previousSecretExpiresAt ? (
            <p className="muted small">
              {t("previousValidUntil", { date: new Date(client.previousSecretExpiresAt) })}
            </p>
          ) : null}
          <Problems items={violations[client.clientId]} />
          <p className="actions">
            <button type="submit" className="button">
              {t("save")}
            </button>{" "}
            <button
              type="button"
              className="button-secondary"
              onClick={() => void rotate(client.clientId)}
            >
              {t("rotate")}
            </button>{" "}
            <button
              type="button"
              className="button-link"
              onClick={() => void remove(client.clientId)}
            >
              {t("delete")}
            </button>
          </p>
        </form>
      ))}
      <form
        className="stack"
        onSubmit={(event) => void create(event)}
        aria-labelledby="new-client-title"
      >
        <h3 id="new-client-title">{t("newTitle")}</h3>
        <ClientFields prefix="new" client={null} />
        <Problems items={violations.new} />
        <p>
          <button type="submit" className="button">
            {t("create")}
          </button>
        </p>
      </form>
    </section>
  );
}

function ClientFields({ prefix, client }: { prefix: string; client: Client | null }) {
  const t = useTranslations("Dashboard.clients");
  return (
    <>
      <div className="field">
        <label htmlFor={`${prefix}-name`}>{t("name")}</label>
        <input id={`${prefix}-name`} name="name" defaultValue={client?.name ?? ""} required />
      </div>
      <div className="field">
        <label htmlFor={`${prefix}-redirectUris`}>{t("redirectUris")}</label>
        <textarea
          id={`${prefix}-redirectUris`}
          name="redirectUris"
          rows={3}
          defaultValue={client?.redirectUris.join("\n") ?? ""}
          aria-describedby={`${prefix}-redirectUris-help`}
        />
        <span id={`${prefix}-redirectUris-help`} className="field-help">
          {t("redirectUrisHelp")}
        </span>
      </div>
    </>
  );
}

function Problems({ items }: { items: Violation[] | undefined }) {
  if (!items || items.length === 0) return null;
  return (
    <ul className="alert" role="alert">
      {items.map((item) => (
        <li key={`${item.field}:${item.message}`}>{item.message}</li>
      ))}
    </ul>
  );
}

function SecretOnce({ secret, onDone }: { secret: Secret; onDone: () => void }) {
  const t = useTranslations("Dashboard.clients");
  const [copied, setCopied] = useState(false);
  return (
    <div className="notice stack" role="status">
      <p>{t("secretOnce", { clientId: secret.clientId })}</p>
      <p>
        <code data-testid="client-secret">{secret.clientSecret}</code>
      </p>
      {secret.previousSecretExpiresAt ? (
        <p className="small">
          {t("previousValidUntil", { date: new Date(secret.previousSecretExpiresAt) })}
        </p>
      ) : null}
      <p>
        <button
          type="button"
          className="button-secondary"
          onClick={() =>
            void navigator.clipboard.writeText(secret.clientSecret).then(() => setCopied(true))
          }
        >
          {copied ? t("copied") : t("copy")}
        </button>{" "}
        <button type="button" className="button-link" onClick={onDone}>
          {t("dismiss")}
        </button>
      </p>
    </div>
  );
}
