"use client";

import { useTranslations } from "next-intl";
import { useState, type ChangeEvent, type FormEvent } from "react";
import { InvalidBackupError, WrongPassphraseError } from "@/lib/keys/browser-key";
import { installKey } from "@/lib/keys/browser-store";
import {
  createKeyBackup,
  openKeyBackup,
  readBackupFile,
  type BackupFile,
} from "@/lib/keys/key-backup";
import { keepUnlockedInTab } from "@/lib/keys/tab-unlock";
import { FocusedAlert, useShownError } from "./focused-alert";
import type { SetupProps } from "./key-setup";
import { NewPassphraseFields, useNewPassphrase } from "./new-passphrase";
import { postKey } from "./setup-requests";

/**
 * A new browser: the account has a key this browser does not hold. The
 * backup file is read and checked against the registered key first (its
 * public key is in the clear); only then is its passphrase asked. A wrong
 * passphrase changes nothing. A plaintext file (a developer export, or a
 * backup from before backups were encrypted) is the same key: it gets a
 * passphrase to be kept under in this browser. `replaced`: this browser
 * holds an older key of the account, replaced since; the screen says so.
 */
export function ImportForm(props: SetupProps & { replaced: boolean }) {
  const t = useTranslations("Setup");
  const [file, setFile] = useState<BackupFile | null>(null);
  const [busy, setBusy] = useState(false);
  const alert = useShownError();
  const chosen = useNewPassphrase([props.email, props.partner, props.service]);

  async function onFile(event: ChangeEvent<HTMLInputElement>) {
    setFile(null);
    alert.clear();
    const chosen = event.currentTarget.files?.[0];
    if (!chosen) return;
    try {
      const read = await readBackupFile(await chosen.text());
      if (read.publicKey !== props.registeredPublicKey) return alert.show(t("wrongKey"));
      setFile(read);
    } catch {
      alert.show(t("invalidFile"));
    }
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!file) return alert.show(t("chooseFile"));
    const form = new FormData(event.currentTarget);
    const passphrase = String(form.get("passphrase") ?? "");
    if (file.kind === "plain") {
      // A new passphrase for the key in this browser: as strong as one chosen at setup.
      setBusy(true);
      const problem = await chosen.refusal(passphrase, String(form.get("confirm") ?? ""));
      setBusy(false);
      if (problem) return alert.show(problem);
    }
    alert.clear();
    setBusy(true);
    try {
      const pair =
        file.kind === "encrypted" ? await openKeyBackup(file.backup, passphrase) : file.pair;
      const backup =
        file.kind === "encrypted"
          ? file.backup
          : await createKeyBackup({
              pair,
              passphrase,
              account: props.email,
              apiBaseUrl: props.issuer,
              readme: t("backupReadme", { account: props.email, service: props.service }),
            });
      const answer = await postKey("/setup/key", {
        csrf: props.csrf.register,
        publicKey: pair.publicKey,
      });
      if (!answer.ok) throw new Error(answer.conflict ? t("keyChanged") : t("failed"));
      await installKey(props.userId, backup);
      await keepUnlockedInTab(props.userId, pair);
      window.location.assign(answer.next);
    } catch (cause) {
      setBusy(false);
      alert.show(
        cause instanceof WrongPassphraseError
          ? t("wrongPassphrase")
          : cause instanceof InvalidBackupError
            ? t("invalidFile")
            : cause instanceof Error && cause.message
              ? cause.message
              : t("failed"),
      );
    }
  }

  return (
    <form onSubmit={onSubmit} className="stack key-setup" noValidate>
      <h2>{t(props.replaced ? "replacedTitle" : "importTitle")}</h2>
      <p>{t(props.replaced ? "replacedIntro" : "importIntro")}</p>
      <div className="field">
        <label htmlFor="backup">{t("fileLabel")}</label>
        <input
          id="backup"
          name="backup"
          type="file"
          accept="application/json,.json"
          required
          onChange={onFile}
          autoFocus
        />
      </div>
      {file?.kind === "encrypted" ? (
        <div className="field">
          <label htmlFor="passphrase">{t("backupPassphraseLabel")}</label>
          <input
            key="backup-passphrase"
            id="passphrase"
            name="passphrase"
            type="password"
            autoComplete="current-password"
            required
            aria-describedby="passphrase-help"
            autoFocus
          />
          <span id="passphrase-help" className="field-help">
            {t("backupPassphraseHelp")}
          </span>
        </div>
      ) : null}
      {file?.kind === "plain" ? (
        <>
          <p className="notice">{t("plainFileNotice")}</p>
          <NewPassphraseFields chosen={chosen} autoFocus />
        </>
      ) : null}
      <FocusedAlert error={alert.error} />
      <p className="key-setup-actions">
        <button type="submit" className="button" disabled={busy}>
          {busy ? t("working") : t("import")}
        </button>
      </p>
    </form>
  );
}
