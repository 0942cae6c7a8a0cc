"use client";

import { useTranslations } from "next-intl";
import { useState, useSyncExternalStore } from "react";
import { passkeysSupported } from "@/lib/keys/passkey-ceremony";
import { PasskeyButton } from "../_components/passkey-button";
import { fetchKeyWithPasskey } from "../_lib/passkey-fetch";
import { FocusedAlert, useShownError } from "./focused-alert";
import type { SetupProps } from "./key-setup";
import { postPasskeyHeldKey } from "./setup-requests";

const neverChanges = () => () => {};

/**
 * A new browser of a person whose passkey holds their key: one tap brings
 * the key here (../_lib/passkey-fetch.ts), instead of the backup file. The
 * key is then registered again (the same key: the service only answers where
 * to go next). Shown above the backup file's form, which stays for a person
 * without that passkey.
 */
export function PasskeyImport(props: SetupProps & { flowId: string }) {
  const t = useTranslations("Setup");
  const supported = useSyncExternalStore(neverChanges, passkeysSupported, () => false);
  const [busy, setBusy] = useState(false);
  const alert = useShownError();

  async function onClick() {
    setBusy(true);
    alert.clear();
    const fetched = await fetchKeyWithPasskey(props.userId, props.flowId);
    if (fetched === "kept" && props.registeredPublicKey) {
      const answer = await postPasskeyHeldKey(props.csrf.register, props.registeredPublicKey);
      if (answer.ok) {
        window.location.assign(answer.next);
        return;
      }
    }
    setBusy(false);
    alert.show(
      t(
        fetched === "cancelled"
          ? "passkeyImportCancelled"
          : fetched === "not_held"
            ? "passkeyImportWrong"
            : "passkeyImportFailed",
      ),
    );
  }

  if (!supported) return null;
  return (
    <>
      <section aria-labelledby="passkey-import-title" className="stack key-setup">
        <h2 id="passkey-import-title">{t("passkeyImportTitle")}</h2>
        <p>{t("passkeyImportIntro")}</p>
        <FocusedAlert error={alert.error} />
        <p className="key-setup-actions">
          <PasskeyButton
            label={t("passkeyImport")}
            busyLabel={t("passkeyWorking")}
            busy={busy}
            onClick={() => void onClick()}
          />
        </p>
      </section>
      <p className="passkey-or" aria-hidden="true">
        <span>{t("passkeyOr")}</span>
      </p>
    </>
  );
}
