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
import { FocusedAlert, useShownError } from "./focused-alert";
import type { SetupProps } from "./key-setup";
import { DEVELOPER_FILENAME, downloadText } from "./setup-requests";

/**
 * "Export for developers": the key in plain form, in the credentials-bundle
 * shape the partner SDKs read. Never offered as the backup: it sits behind a
 * disclosure, says what it exposes, and takes a second click (and the
 * passphrase, unless this tab holds the key unlocked).
 */
export function DeveloperExport(props: SetupProps & { source: InstalledKey }) {
  const t = useTranslations("Setup");
  const [unlocked, setUnlocked] = useState<UserKeyPair | null>(null);
  const alert = useShownError();

  async function onToggle(event: React.SyntheticEvent<HTMLDetailsElement>) {
    if (!event.currentTarget.open) return;
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
    <details className="key-setup-developer" onToggle={onToggle}>
      <summary>{t("developerTitle")}</summary>
      <form onSubmit={onSubmit} className="stack" noValidate>
        <p className="key-setup-warning">{t("developerWarning")}</p>
        {unlocked ? null : (
          <div className="field">
            <label htmlFor="developer-passphrase">{t("passphraseLabel")}</label>
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
            {t("developerDownload")}
          </button>
        </p>
      </form>
    </details>
  );
}
