"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { WrongPassphraseError, type UserKeyPair } from "@/lib/keys/browser-key";
import {
  backupOf,
  isPasskeyHeld,
  loadInstalledKey,
  unlockInstalledKey,
} from "@/lib/keys/browser-store";
import { createKeyBackup, type KeyBackup } from "@/lib/keys/key-backup";
import { PasskeyButton } from "../_components/passkey-button";
import { BackupDownload } from "../setup/backup-step";
import { BackupSavedCheck } from "../setup/backup-saved-check";
import { FocusedAlert, useShownError } from "../setup/focused-alert";
import { NewPassphraseFields, useNewPassphrase } from "../setup/new-passphrase";
import { confirmBackupSaved } from "./passkey-requests";
import type { UserKey } from "./use-user-key";

/** Where the file comes from: this browser's own backup, or the key, to encrypt anew. */
type Source =
  | { kind: "loading" }
  /** This browser keeps the encrypted backup itself: the file is ready. */
  | { kind: "file"; backup: KeyBackup }
  /** The key is unlocked in this tab: a passphrase is chosen for the new file. */
  | { kind: "choose"; pair: UserKeyPair }
  /** An older form of the key in this browser: its passphrase opens it and locks the file. */
  | { kind: "unlock" }
  /** A passkey that holds the key opens it first (this browser's, or by signing in with one). */
  | { kind: "passkey" }
  /** This browser cannot give the key. */
  | { kind: "none" };

/**
 * Makes the passphrase backup file on My access, the recommended second way
 * back to a key a passkey holds (docs/account.md#passkeys): the file, then
 * "I saved the backup file", then the service records that it was saved
 * (which lets the last passkey holding the key be removed). The file is
 * encrypted in the browser; the passphrase and the key never leave it.
 */
export function BackupMaker(props: {
  userId: string;
  email: string;
  issuer: string;
  service: string;
  publicKey: string;
  userKey: UserKey;
  /** One of the person's passkeys holds the key (so one can bring it to this browser). */
  passkeyHoldsKey: boolean;
  /** Unlocks the key with a passkey; the text to show when that did not work, else null. */
  unlockByPasskey: () => Promise<string | null>;
  csrf: string;
  /** Focus the first field (the key was just brought here to make this file). */
  focusFirst?: boolean;
  /** Called with the moment the service recorded (ISO). */
  onSaved: (at: string) => void;
}) {
  const t = useTranslations("Account.backup");
  const setup = useTranslations("Setup");
  const [source, setSource] = useState<Source>({ kind: "loading" });
  const [backup, setBackup] = useState<KeyBackup | null>(null);
  const [downloaded, setDownloaded] = useState(false);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const alert = useShownError();
  const chosen = useNewPassphrase([props.email, props.service]);
  const { userId, publicKey, userKey, passkeyHoldsKey, focusFirst } = props;
  const firstField = useRef<HTMLInputElement>(null);

  // Once both are known (they arrive in either order): the passphrase for the new file is next.
  useEffect(() => {
    if (focusFirst && source.kind === "choose") firstField.current?.focus();
  }, [focusFirst, source.kind]);

  useEffect(() => {
    let cancelled = false;
    async function find(): Promise<Source> {
      if (userKey.kind === "loading") return { kind: "loading" };
      const installed = await loadInstalledKey(userId).catch(() => null);
      const kept = installed && installed.publicKey === publicKey ? backupOf(installed) : null;
      if (kept) return { kind: "file", backup: kept };
      if (userKey.kind === "unlocked") return { kind: "choose", pair: userKey.pair };
      if (userKey.kind === "locked") {
        return isPasskeyHeld(userKey.installed) ? { kind: "passkey" } : { kind: "unlock" };
      }
      return passkeyHoldsKey ? { kind: "passkey" } : { kind: "none" };
    }
    void find().then((found) => !cancelled && setSource(found));
    return () => {
      cancelled = true;
    };
  }, [userId, publicKey, userKey, passkeyHoldsKey]);

  async function onPasskey() {
    setBusy(true);
    const problem = await props.unlockByPasskey();
    setBusy(false);
    if (problem) alert.show(problem);
    else alert.clear();
  }

  const readme = () => setup("backupReadme", { account: props.email, service: props.service });

  async function onChoose(event: FormEvent<HTMLFormElement>, pair: UserKeyPair) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const passphrase = String(form.get("passphrase") ?? "");
    setBusy(true);
    const problem = await chosen.refusal(passphrase, String(form.get("confirm") ?? ""));
    setBusy(false);
    if (problem) return alert.show(problem);
    await make(pair, passphrase);
  }

  async function onUnlock(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (userKey.kind !== "locked") return;
    const passphrase = String(new FormData(event.currentTarget).get("passphrase") ?? "");
    setBusy(true);
    try {
      const pair = await unlockInstalledKey(userKey.installed, passphrase);
      // The key was kept under this passphrase: the file is locked with it too.
      await make(pair, passphrase);
    } catch (error) {
      setBusy(false);
      alert.show(error instanceof WrongPassphraseError ? t("wrongPassphrase") : t("failed"));
    }
  }

  async function make(pair: UserKeyPair, passphrase: string) {
    alert.clear();
    setBusy(true);
    try {
      setBackup(
        await createKeyBackup({
          pair,
          passphrase,
          account: props.email,
          apiBaseUrl: props.issuer,
          readme: readme(),
        }),
      );
    } catch {
      alert.show(t("failed"));
    } finally {
      setBusy(false);
    }
  }

  async function onConfirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!downloaded || !saved) return alert.show(setup("notSaved"));
    setBusy(true);
    const answer = await confirmBackupSaved(props.csrf, publicKey);
    setBusy(false);
    if (answer.ok && typeof answer.body.keyBackupAt === "string") {
      alert.clear();
      props.onSaved(answer.body.keyBackupAt);
    } else {
      alert.show(answer.ok || answer.error !== "key_changed" ? t("failed") : t("keyChanged"));
    }
  }

  const file = backup ?? (source.kind === "file" ? source.backup : null);
  if (file) {
    return (
      <form className="stack backup-maker" onSubmit={(event) => void onConfirm(event)} noValidate>
        <p className="hint">{backup ? t("fileNew") : t("fileKept")}</p>
        <p>
          <BackupDownload
            backup={file}
            className={downloaded ? "button-secondary" : "button"}
            onDownload={() => setDownloaded(true)}
          >
            {downloaded ? setup("downloadAgain") : setup("download")}
          </BackupDownload>
        </p>
        {downloaded ? (
          <>
            <BackupSavedCheck id="backup-saved" checked={saved} onChange={setSaved} />
            <FocusedAlert error={alert.error} />
            <p>
              <button type="submit" className="button" disabled={busy}>
                {busy ? setup("working") : t("confirm")}
              </button>
            </p>
          </>
        ) : (
          <FocusedAlert error={alert.error} />
        )}
      </form>
    );
  }

  switch (source.kind) {
    case "loading":
      return null;
    case "none":
      return <p className="hint">{t("notHere")}</p>;
    case "passkey":
      return (
        <div className="stack backup-maker">
          <p className="hint">{t("passkeyIntro")}</p>
          <FocusedAlert error={alert.error} />
          <p>
            <PasskeyButton
              label={t("unlockPasskey")}
              busyLabel={setup("working")}
              busy={busy}
              onClick={() => void onPasskey()}
            />
          </p>
        </div>
      );
    case "unlock":
      return (
        <form className="stack backup-maker" onSubmit={(event) => void onUnlock(event)} noValidate>
          <p className="hint">{t("unlockIntro")}</p>
          <div className="field">
            <label htmlFor="backup-unlock">{t("passphrase")}</label>
            <input
              id="backup-unlock"
              name="passphrase"
              type="password"
              autoComplete="current-password"
              required
            />
          </div>
          <FocusedAlert error={alert.error} />
          <p>
            <button type="submit" className="button" disabled={busy}>
              {busy ? setup("working") : t("make")}
            </button>
          </p>
        </form>
      );
    case "choose": {
      const pair = source.pair;
      return (
        <form
          className="stack backup-maker"
          onSubmit={(event) => void onChoose(event, pair)}
          noValidate
        >
          <p className="hint">{t("chooseIntro")}</p>
          <NewPassphraseFields chosen={chosen} idPrefix="backup-" inputRef={firstField} />
          <FocusedAlert error={alert.error} />
          <p>
            <button type="submit" className="button" disabled={busy}>
              {busy ? setup("working") : t("make")}
            </button>
          </p>
        </form>
      );
    }
  }
}
