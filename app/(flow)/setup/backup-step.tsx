"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent, type ReactNode } from "react";
import { savePendingSetup, type PendingSetup } from "@/lib/keys/browser-store";
import { serializeKeyBackup, type KeyBackup } from "@/lib/keys/key-backup";
import { BackupSavedCheck } from "./backup-saved-check";
import { BACKUP_FILENAME, dataUrl } from "./setup-requests";

/** A link that downloads the encrypted backup file (kept in IndexedDB, so it works after a reload too). */
export function BackupDownload({
  backup,
  className,
  onDownload,
  children,
}: {
  backup: KeyBackup;
  className: string;
  onDownload?: () => void;
  children: ReactNode;
}) {
  return (
    <a
      className={className}
      href={dataUrl(serializeKeyBackup(backup))}
      download={BACKUP_FILENAME}
      onClick={onDownload}
    >
      {children}
    </a>
  );
}

/**
 * The backup step: the file first, then "I saved the file", then Continue
 * (with the file still on offer). Continue stays hidden until the file was
 * downloaded, and is refused until the box is ticked: setup is not left
 * without a backup. Each step is kept in the browser's key database for
 * `userId` before the screen shows it, so a reload resumes where it was.
 */
export function BackupStep(props: {
  userId: string;
  pending: PendingSetup;
  busy: boolean;
  /** The kept setup, to show. */
  onKept: (pending: PendingSetup) => void;
  /** The file was saved and confirmed: the key can be registered. */
  onConfirmed: (pending: PendingSetup) => Promise<void>;
  showError: (text: string) => void;
  /** The screen's error, shown above Continue. */
  alert: ReactNode;
}) {
  const t = useTranslations("Setup");
  const [saved, setSaved] = useState(false);
  const { pending } = props;

  async function keep(step: Partial<Pick<PendingSetup, "downloaded" | "confirmed">>) {
    const next = { ...pending, ...step };
    await savePendingSetup(props.userId, next);
    props.onKept(next);
    return next;
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!pending.downloaded || !saved) return props.showError(t("notSaved"));
    void keep({ confirmed: true }).then(props.onConfirmed);
  }

  return (
    <section aria-labelledby="backup-title" className="stack key-setup">
      <h2 id="backup-title">{t("backupTitle")}</h2>
      <p>{t("backupIntro")}</p>
      {pending.replaces ? <p className="notice">{t("replaceNotice")}</p> : null}
      <form onSubmit={onSubmit} noValidate className="stack">
        {pending.downloaded ? (
          <>
            <BackupSavedCheck id="saved" checked={saved} onChange={setSaved} />
            {props.alert}
            <p className="key-setup-actions">
              <button type="submit" className="button" disabled={props.busy}>
                {props.busy ? t("working") : t("continue")}
              </button>
              <BackupDownload
                backup={pending.backup}
                className="key-setup-again"
                onDownload={() => void keep({ downloaded: true })}
              >
                {t("downloadAgain")}
              </BackupDownload>
            </p>
          </>
        ) : (
          <>
            {props.alert}
            <p className="key-setup-actions">
              <BackupDownload
                backup={pending.backup}
                className="button"
                onDownload={() => void keep({ downloaded: true })}
              >
                {t("download")}
              </BackupDownload>
            </p>
          </>
        )}
      </form>
    </section>
  );
}
