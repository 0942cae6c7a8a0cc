"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import {
  generateUserKey,
  InvalidBackupError,
  parseBackupBundle,
  saveWrappedKey,
  toBackupBundle,
  wrapPrivateKey,
  type UserKeyPair,
} from "@/lib/keys/browser-key";

const MIN_PASSPHRASE = 10;

type Phase =
  { kind: "form" } | { kind: "working" } | { kind: "backup"; pair: UserKeyPair; next: string };

/**
 * Creates the user's key in this browser, or imports a backup when the account
 * already has one; wraps it with the passphrase into IndexedDB and registers
 * only the public key.
 */
export function KeySetup(props: {
  csrf: string;
  userId: string;
  registeredPublicKey: string | null;
  issuer: string;
  subject: string;
}) {
  const t = useTranslations("Setup");
  const [phase, setPhase] = useState<Phase>({ kind: "form" });
  const [error, setError] = useState<string | null>(null);
  const importing = props.registeredPublicKey !== null;

  async function register(pair: UserKeyPair, passphrase: string): Promise<string> {
    await saveWrappedKey(props.userId, await wrapPrivateKey(pair, passphrase));
    const response = await fetch("/setup/key", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ publicKey: pair.publicKey, csrf: props.csrf }),
    });
    if (response.status === 409) throw new Error(t("wrongKey"));
    if (!response.ok) throw new Error(t("failed"));
    return ((await response.json()) as { next: string }).next;
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const passphrase = String(form.get("passphrase") ?? "");
    setError(null);
    if (passphrase.length < MIN_PASSPHRASE) return setError(t("tooShort"));
    if (passphrase !== String(form.get("confirm") ?? "")) return setError(t("mismatch"));
    setPhase({ kind: "working" });
    try {
      if (importing) {
        const file = form.get("backup");
        const pair = await parseBackupBundle(file instanceof File ? await file.text() : "");
        if (pair.publicKey !== props.registeredPublicKey) throw new Error(t("wrongKey"));
        window.location.assign(await register(pair, passphrase));
        return;
      }
      const pair = await generateUserKey();
      setPhase({ kind: "backup", pair, next: await register(pair, passphrase) });
    } catch (cause) {
      setPhase({ kind: "form" });
      setError(
        cause instanceof InvalidBackupError
          ? t("invalidFile")
          : cause instanceof Error
            ? cause.message
            : t("failed"),
      );
    }
  }

  if (phase.kind === "backup") {
    const bundle = JSON.stringify(
      toBackupBundle({ issuer: props.issuer, user: props.subject, pair: phase.pair }),
      null,
      2,
    );
    const href = `data:application/json;charset=utf-8,${encodeURIComponent(bundle)}`;
    return (
      <section aria-labelledby="backup-title">
        <h2 id="backup-title">{t("backupTitle")}</h2>
        <p>{t("backupIntro")}</p>
        <p className="stack">
          <a className="button-secondary" href={href} download="bank-connect-key-backup.json">
            {t("download")}
          </a>
          <a className="button" href={phase.next}>
            {t("continue")}
          </a>
        </p>
      </section>
    );
  }

  return (
    <form onSubmit={onSubmit} className="stack" noValidate>
      {importing ? (
        <>
          <h2>{t("importTitle")}</h2>
          <p>{t("importIntro")}</p>
          <div className="field">
            <label htmlFor="backup">{t("fileLabel")}</label>
            <input id="backup" name="backup" type="file" accept="application/json,.json" required />
          </div>
        </>
      ) : null}
      <div className="field">
        <label htmlFor="passphrase">{t("passphraseLabel")}</label>
        <input
          id="passphrase"
          name="passphrase"
          type="password"
          autoComplete="new-password"
          minLength={MIN_PASSPHRASE}
          required
          aria-describedby="passphrase-help"
        />
        <span id="passphrase-help" className="field-help">
          {t("passphraseHelp")}
        </span>
      </div>
      <div className="field">
        <label htmlFor="confirm">{t("confirmLabel")}</label>
        <input id="confirm" name="confirm" type="password" autoComplete="new-password" required />
      </div>
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
      <p>
        <button type="submit" className="button" disabled={phase.kind === "working"}>
          {phase.kind === "working" ? t("working") : importing ? t("import") : t("create")}
        </button>
      </p>
    </form>
  );
}
