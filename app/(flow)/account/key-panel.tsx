"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { DateTime } from "@/app/_components/date-time";
import { backupOf, loadInstalledKey, type InstalledKey } from "@/lib/keys/browser-store";
import type { KeyBackup } from "@/lib/keys/key-backup";
import { BackupDownload } from "../setup/backup-step";
import { DeveloperExport } from "./developer-export";
import { passphraseOpens } from "./use-user-key";

/**
 * Your key: its fingerprint and when it was made, the encrypted backup file
 * again (the very file this browser keeps, still locked with the
 * passphrase), the way to start over with a new key, and, for developers,
 * the key in plain form (behind a fresh sign-in).
 */
export function KeyPanel(props: {
  userId: string;
  publicKey: string;
  fingerprint: string;
  /** When the key was registered (ISO); shown as date, time and zone. */
  created: string | null;
  issuer: string;
  /** The subject a developer export names as its user. */
  subject: string;
  /** Null while the sign-in is fresh; else the sign-in page that re-confirms it. */
  reconfirm: string | null;
}) {
  const t = useTranslations("Account.key");
  const [backup, setBackup] = useState<KeyBackup | null | "loading">("loading");
  const [installed, setInstalled] = useState<InstalledKey | null>(null);
  const { userId, publicKey } = props;

  useEffect(() => {
    let cancelled = false;
    loadInstalledKey(userId).then(
      (installed) => {
        if (cancelled) return;
        const current = installed?.publicKey === publicKey ? installed : null;
        setInstalled(current);
        setBackup(current ? backupOf(current) : null);
      },
      () => !cancelled && setBackup(null),
    );
    return () => {
      cancelled = true;
    };
  }, [userId, publicKey]);

  return (
    <section aria-labelledby="key-title" className="stack account-section">
      <h2 id="key-title">{t("title")}</h2>
      <dl className="account-facts">
        <dt>{t("fingerprint")}</dt>
        <dd>
          <code data-testid="key-fingerprint">{props.fingerprint}</code>
        </dd>
        {props.created ? (
          <>
            <dt>{t("created")}</dt>
            <dd>
              <DateTime value={props.created} />
            </dd>
          </>
        ) : null}
      </dl>
      {backup === "loading" ? null : backup ? (
        <p>
          <BackupDownload backup={backup} className="button-secondary">
            {t("backup")}
          </BackupDownload>
          <span className="hint account-hint">{t("backupHint")}</span>
        </p>
      ) : installed ? null : (
        // A key held by passkeys only has no file here yet: the passkey panel makes one.
        <p className="hint">{t("notHere")}</p>
      )}
      <p className="hint">{t("startOverHint")}</p>
      <p>
        <a className="button-link" href="/account?key=start-over">
          {t("startOver")}
        </a>
      </p>
      {installed && passphraseOpens(installed) ? (
        <DeveloperExport
          userId={userId}
          issuer={props.issuer}
          subject={props.subject}
          source={installed}
          reconfirm={props.reconfirm}
        />
      ) : null}
    </section>
  );
}
