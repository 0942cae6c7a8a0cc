"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import {
  toCredentialsBundle,
  WrongPassphraseError,
  type UserKeyPair,
} from "@/lib/keys/browser-key";
import { unlockInstalledKey, type InstalledKey } from "@/lib/keys/browser-store";
import { unlockedInTab } from "@/lib/keys/tab-unlock";
import { FocusedAlert, useShownError } from "../setup/focused-alert";
import { DEVELOPER_FILENAME, downloadText } from "../setup/setup-requests";

/**
 * "For developers: export the key unencrypted", on My access only (never in
 * a partner's flow): the key in plain form, in the credentials-bundle shape
 * the partner SDKs read. It sits behind a disclosure, says what it exposes,
 * takes a second click and the passphrase (unless this tab holds the key
 * unlocked), and is offered only to a fresh sign-in: an older session is
 * sent to sign in again first (`reconfirm`) and comes back here.
 */
export function DeveloperExport(props: {
  userId: string;
  issuer: string;
  /** The subject the bundle names as its user. */
  subject: string;
  source: InstalledKey;
  /** Null while the sign-in is fresh; else the sign-in page that re-confirms it. */
  reconfirm: string | null;
}) {
  const t = useTranslations("Account.key.export");
  const [unlocked, setUnlocked] = useState<UserKeyPair | null>(null);
  const alert = useShownError();

  async function onToggle(event: React.SyntheticEvent<HTMLDetailsElement>) {
    if (!event.currentTarget.open || props.reconfirm) return;
    setUnlocked(await unlockedInTab(props.userId, props.source.publicKey).catch(() => null));
  }

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const passphrase = String(new FormData(event.currentTarget).get("passphrase") ?? "");
    try {
      const pair = unlocked ?? (await unlockInstalledKey(props.source, passphrase));
      const bundle = toCredentialsBundle({ issuer: props.issuer, user: props.subject, pair });
      downloadText(`${JSON.stringify(bundle, null, 2)}\n`, DEVELOPER_FILENAME);
      alert.clear();
    } catch (cause) {
      alert.show(cause instanceof WrongPassphraseError ? t("wrongPassphrase") : t("failed"));
    }
  }

  return (
    <details className="account-developer" onToggle={(event) => void onToggle(event)}>
      <summary>{t("title")}</summary>
      <div className="stack account-developer-body">
        <p className="account-developer-warning">{t("warning")}</p>
        {props.reconfirm ? (
          <>
            <p className="hint">{t("reconfirm")}</p>
            <p>
              <a className="button-secondary" href={props.reconfirm}>
                {t("signInAgain")}
              </a>
            </p>
          </>
        ) : (
          <form onSubmit={(event) => void onSubmit(event)} className="stack" noValidate>
            {unlocked ? null : (
              <div className="field">
                <label htmlFor="developer-passphrase">{t("passphrase")}</label>
                <input
                  id="developer-passphrase"
                  name="passphrase"
                  type="password"
                  autoComplete="current-password"
                  required
                />
              </div>
            )}
            <FocusedAlert error={alert.error} />
            <p>
              <button type="submit" className="button-secondary">
                {t("download")}
              </button>
            </p>
          </form>
        )}
      </div>
    </details>
  );
}
