"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { forgetTabUnlock } from "@/lib/keys/tab-unlock";
import { FocusedAlert, useShownError } from "../setup/focused-alert";
import { postAction } from "./account-requests";

/**
 * Delete everything, after the person typed their sign-in address: their
 * connections, data and every application's access go, and so does their
 * session; the browser then lands on `after`, the page that says what was
 * deleted and leads back to the partner.
 */
export function DeleteForm({ csrf, email, after }: { csrf: string; email: string; after: string }) {
  const t = useTranslations("Account.delete");
  const [busy, setBusy] = useState(false);
  const alert = useShownError();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const confirm = String(new FormData(event.currentTarget).get("confirm") ?? "");
    if (confirm.trim().toLowerCase() !== email) return alert.show(t("mismatch"));
    setBusy(true);
    const answer = await postAction("/account/delete", { csrf, confirm });
    if (answer.ok) {
      // The key this tab kept unlocked opens nothing any more: it goes too.
      await forgetTabUnlock().catch(() => undefined);
      // A full load: nothing of the deleted account may stay in this page's state.
      window.location.assign(new URL(after, window.location.href).href);
      return;
    }
    setBusy(false);
    alert.show(
      answer.error === "owns_partner"
        ? t("ownsPartner")
        : answer.error === "confirmation_mismatch"
          ? t("mismatch")
          : t("failed"),
    );
  }

  return (
    <section aria-labelledby="delete-title" className="stack account-section account-danger">
      <h2 id="delete-title">{t("title")}</h2>
      <p>{t("body")}</p>
      <form className="stack" noValidate onSubmit={(event) => void onSubmit(event)}>
        <label className="label" htmlFor="delete-confirm">
          {t("label", { email })}
        </label>
        <input
          id="delete-confirm"
          name="confirm"
          type="email"
          className="field"
          autoComplete="off"
          spellCheck={false}
        />
        <FocusedAlert error={alert.error} />
        <button type="submit" className="button-danger" disabled={busy}>
          {t("button")}
        </button>
      </form>
    </section>
  );
}
