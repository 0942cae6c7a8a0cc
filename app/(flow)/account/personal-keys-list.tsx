"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { FocusedAlert, useShownError } from "../setup/focused-alert";
import { ConfirmAction } from "./confirm-action";
import "./personal-keys.css";

export interface PersonalKeyItem {
  id: string;
  /** The person's name for it; null for the command-line client's keys. */
  name: string | null;
  commandLine: boolean;
  clientName: string;
  prefix: string;
  created: string;
  expires: string;
  lastUsed: string | null;
}

type Answer = { ok: true; body: Record<string, unknown> } | { ok: false; error: string };

/**
 * A "My access" action posted as JSON with its CSRF token; a stale session is
 * sent to sign in again (the answer's `location`) and the page stays busy.
 */
async function post(path: "/account/keys" | "/account/keys/revoke", body: object): Promise<Answer> {
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.ok) return { ok: true, body: answer };
    if (typeof answer.location === "string" && answer.location.startsWith("/")) {
      window.location.assign(answer.location);
      return new Promise<Answer>(() => {});
    }
    return { ok: false, error: typeof answer.error === "string" ? answer.error : "failed" };
  } catch {
    return { ok: false, error: "failed" };
  }
}

interface NewKey {
  name: string;
  apiKey: string;
}

export function PersonalKeysList(props: {
  csrf: { create: string; revoke: string };
  hasKey: boolean;
  keys: PersonalKeyItem[];
}) {
  const t = useTranslations("PersonalKeys");
  const [keys, setKeys] = useState(props.keys);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [revoked, setRevoked] = useState<string | null>(null);
  const [made, setMade] = useState<NewKey | null>(null);
  const [copied, setCopied] = useState(false);
  const alert = useShownError();
  const status = useRef<HTMLParagraphElement>(null);
  const madeRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (revoked) status.current?.focus();
  }, [revoked]);
  useEffect(() => {
    if (made) madeRef.current?.focus();
  }, [made]);

  const nameOf = (key: PersonalKeyItem) =>
    key.commandLine ? t("commandLine") : (key.name ?? key.clientName);

  async function revoke(key: PersonalKeyItem) {
    setBusy(true);
    alert.clear();
    const answer = await post("/account/keys/revoke", { csrf: props.csrf.revoke, id: key.id });
    setBusy(false);
    if (answer.ok || answer.error === "not_found") {
      setKeys((list) => list.filter((other) => other.id !== key.id));
      setConfirming(null);
      setRevoked(nameOf(key));
    } else {
      alert.show(t("failed"));
    }
  }

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get("name") ?? "").trim();
    if (name === "" || name.length > 60) return alert.show(t("nameInvalid"));
    setBusy(true);
    alert.clear();
    setRevoked(null);
    const answer = await post("/account/keys", { csrf: props.csrf.create, name });
    setBusy(false);
    if (!answer.ok) {
      return alert.show(
        answer.error === "too_many_keys"
          ? t("tooMany")
          : answer.error === "invalid_request"
            ? t("nameInvalid")
            : t("failed"),
      );
    }
    const key = answer.body.key as {
      id: string;
      name: string;
      apiKey: string;
      prefix: string;
      createdAt: string;
      expiresAt: string;
    };
    const date = (iso: string) =>
      new Intl.DateTimeFormat(document.documentElement.lang || undefined, {
        dateStyle: "medium",
        timeZone: "UTC",
      }).format(new Date(iso));
    setKeys((list) => [
      ...list,
      {
        id: key.id,
        name: key.name,
        commandLine: false,
        clientName: key.name,
        prefix: key.prefix,
        created: date(key.createdAt),
        expires: date(key.expiresAt),
        lastUsed: null,
      },
    ]);
    setCopied(false);
    setMade({ name: key.name, apiKey: key.apiKey });
    form.reset();
  }

  async function copy() {
    if (!made) return;
    try {
      await navigator.clipboard.writeText(made.apiKey);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }

  return (
    <section aria-labelledby="own-keys-title" className="stack account-section">
      <h2 id="own-keys-title">{t("title")}</h2>
      <p className="hint">
        {t.rich("intro", { link: (chunks) => <a href="/docs/own-data">{chunks}</a> })}
      </p>
      {revoked ? (
        <p ref={status} className="alert alert-success" role="status" tabIndex={-1}>
          {t("revoked", { name: revoked })}
        </p>
      ) : null}
      <FocusedAlert error={alert.error} />
      {keys.length === 0 ? <p className="muted">{t("none")}</p> : null}
      <ul className="list-plain stack account-list">
        {keys.map((key) => (
          <li key={key.id} className="account-item" data-testid="own-key">
            <div className="account-item-head">
              <h3>{nameOf(key)}</h3>
            </div>
            <ul className="list-plain account-keys">
              <li>
                <code>{t("prefix", { prefix: key.prefix })}</code>
              </li>
              <li>{t("created", { date: key.created })}</li>
              <li>{key.lastUsed ? t("lastUsed", { date: key.lastUsed }) : t("neverUsed")}</li>
              <li>{t("expires", { date: key.expires })}</li>
            </ul>
            <ConfirmAction
              id={`revoke-${key.id}`}
              open={confirming === key.id}
              busy={busy}
              title={t("confirmTitle", { name: nameOf(key) })}
              body={t("confirmBody")}
              confirmLabel={t("confirm")}
              cancelLabel={t("cancel")}
              actionLabel={t("revoke")}
              subject={nameOf(key)}
              onOpen={() => setConfirming(key.id)}
              onCancel={() => setConfirming(null)}
              onConfirm={() => void revoke(key)}
            />
          </li>
        ))}
      </ul>
      {made ? (
        <div
          ref={madeRef}
          className="notice stack own-key-made"
          role="status"
          tabIndex={-1}
          data-testid="own-key-made"
        >
          <p>
            <strong>{t("madeTitle", { name: made.name })}</strong>
          </p>
          <p>{t("madeNote")}</p>
          <label htmlFor="own-key-value" className="visually-hidden">
            {t("valueLabel")}
          </label>
          <input
            id="own-key-value"
            className="own-key-value"
            readOnly
            value={made.apiKey}
            onFocus={(event) => event.currentTarget.select()}
          />
          <p>
            <button type="button" className="button-secondary" onClick={() => void copy()}>
              {copied ? t("copied") : t("copy")}
            </button>
          </p>
        </div>
      ) : null}
      {props.hasKey ? (
        <form className="stack" onSubmit={(event) => void create(event)} noValidate>
          <h3 className="own-key-create-title">{t("createTitle")}</h3>
          <div className="field">
            <label htmlFor="own-key-name">{t("nameLabel")}</label>
            <input
              id="own-key-name"
              name="name"
              type="text"
              maxLength={60}
              autoComplete="off"
              required
              aria-describedby="own-key-name-help"
            />
            <span id="own-key-name-help" className="field-help">
              {t("nameHelp")}
            </span>
          </div>
          <p>
            <button type="submit" className="button-secondary" disabled={busy}>
              {t("create")}
            </button>
          </p>
        </form>
      ) : (
        <p className="hint">{t("needKey")}</p>
      )}
    </section>
  );
}
