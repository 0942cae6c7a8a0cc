"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { generateUserKey } from "@/lib/keys/browser-key";
import type { PendingSetup } from "@/lib/keys/browser-store";
import { createKeyBackup } from "@/lib/keys/key-backup";
import { keepUnlockedInTab } from "@/lib/keys/tab-unlock";
import { FocusedAlert, useShownError } from "./focused-alert";
import type { SetupProps } from "./key-setup";
import { NewPassphraseFields, useNewPassphrase } from "./new-passphrase";

/** How a typed confirmation word compares: case, width and spacing do not matter. */
const normalizeWord = (text: string) =>
  text.normalize("NFKC").trim().replace(/\s+/g, " ").toLocaleLowerCase();

/**
 * Makes a new key: on first setup, or when starting over (`replaces` is the
 * registered key it will replace), which first says what is lost and asks for
 * a typed confirmation. The passphrase must be long enough and hard to guess
 * (its strength is shown as it is typed: new-passphrase.tsx). The key and its
 * encrypted backup are kept in IndexedDB before anything else happens, and
 * stay unlocked for this tab.
 */
export function NewKeyForm(
  props: SetupProps & {
    replaces: string | null;
    onCreated: (pending: PendingSetup) => Promise<void>;
    onCancel?: () => void;
  },
) {
  const t = useTranslations("Setup");
  const [busy, setBusy] = useState(false);
  const alert = useShownError();
  const startingOver = props.replaces !== null;
  const word = t("startOverWord");
  const chosen = useNewPassphrase([props.email, props.partner, props.service]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const passphrase = String(form.get("passphrase") ?? "");
    if (startingOver && normalizeWord(String(form.get("word") ?? "")) !== normalizeWord(word)) {
      return alert.show(t("startOverMismatch", { word }));
    }
    setBusy(true);
    const problem = await chosen.refusal(passphrase, String(form.get("confirm") ?? ""));
    setBusy(false);
    if (problem) return alert.show(problem);
    alert.clear();
    setBusy(true);
    try {
      const pair = await generateUserKey();
      const backup = await createKeyBackup({
        pair,
        passphrase,
        account: props.email,
        apiBaseUrl: props.issuer,
        readme: t("backupReadme", { account: props.email, service: props.service }),
      });
      await keepUnlockedInTab(props.userId, pair);
      await props.onCreated({
        backup,
        downloaded: false,
        confirmed: false,
        replaces: props.replaces,
      });
    } catch {
      setBusy(false);
      alert.show(t("failed"));
    }
  }

  return (
    <form onSubmit={onSubmit} className="stack key-setup" noValidate>
      {startingOver ? (
        <>
          <h2 id="start-over-title">{t("startOverTitle")}</h2>
          <p>{t("startOverIntro", { service: props.service })}</p>
          <ul className="key-setup-list">
            <li>{t("startOverDeletes", { service: props.service })}</li>
            <li>{t("startOverPartners", { partner: props.partner })}</li>
            <li>{t("startOverNewKey")}</li>
          </ul>
          <div className="field">
            <label htmlFor="word">{t("startOverConfirmLabel", { word })}</label>
            <input
              id="word"
              name="word"
              type="text"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              required
              autoFocus
            />
          </div>
        </>
      ) : null}
      <NewPassphraseFields chosen={chosen} autoFocus={!startingOver} />
      <FocusedAlert error={alert.error} />
      <p className="key-setup-actions">
        <button type="submit" className="button" disabled={busy}>
          {busy ? t("working") : startingOver ? t("startOverSubmit") : t("create")}
        </button>
        {props.onCancel ? (
          <button type="button" className="button-link" onClick={props.onCancel}>
            {t("cancel")}
          </button>
        ) : null}
      </p>
    </form>
  );
}
