"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState, type FormEvent } from "react";
import { WrongPassphraseError, type UserKeyPair } from "@/lib/keys/browser-key";
import { loadInstalledKey, unlockInstalledKey } from "@/lib/keys/browser-store";
import { openEnvelopeInBrowser } from "@/lib/keys/browser-envelope";
import { forgetTabUnlock } from "@/lib/keys/tab-unlock";
import { FocusedAlert, useShownError } from "../setup/focused-alert";
import { useUserKey } from "../account/use-user-key";
import "../setup/setup.css";

type Relay = { redirectUri: string; fields: [string, string][] };

/**
 * User-key approval (docs/key-model.md): the key that opens the data is only
 * in this browser. If this tab set it up or unlocked it within the last
 * minutes it is used as it is; otherwise the passphrase unlocks it. The
 * server then mints the code, and this page posts the relay (code, state,
 * iss, then privateKey/publicKey filled in here) to the partner. The private
 * key never goes to the service; the tab forgets it once the relay is posted.
 */
export function ApproveWithKey(props: {
  csrf: string;
  userId: string;
  registeredPublicKey: string;
  /** `{proof}` sealed to the registered key: approving sends what is inside. */
  challenge: string;
  partner: string;
}) {
  const t = useTranslations("Consent");
  const { userId, registeredPublicKey } = props;
  // Unlocked in this tab, locked behind the passphrase, or not in this browser.
  const { key } = useUserKey(userId, registeredPublicKey);
  const [busy, setBusy] = useState(false);
  const [forgot, setForgot] = useState(false);
  // Without the registered key: whether this browser holds an older one, replaced since
  // (null until known).
  const [olderKey, setOlderKey] = useState<boolean | null>(null);
  const alert = useShownError();

  useEffect(() => {
    if (key.kind !== "missing") return;
    let cancelled = false;
    loadInstalledKey(userId).then(
      (installed) => {
        if (!cancelled)
          setOlderKey(installed !== null && installed.publicKey !== registeredPublicKey);
      },
      () => !cancelled && setOlderKey(false),
    );
    return () => {
      cancelled = true;
    };
  }, [key.kind, userId, registeredPublicKey]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (key.kind !== "unlocked" && key.kind !== "locked") return;
    const passphrase = String(new FormData(event.currentTarget).get("passphrase") ?? "");
    setBusy(true);
    alert.clear();
    try {
      const pair =
        key.kind === "unlocked" ? key.pair : await unlockInstalledKey(key.installed, passphrase);
      // The proof that this browser holds the key: the page's challenge, opened with it.
      const proof = await openKeyProof(pair, props.challenge);
      if (proof === null) throw new Error(t("keyChanged"));
      const response = await fetch("/consent/approve", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ csrf: props.csrf, publicKey: pair.publicKey, proof }),
      });
      if (!response.ok) {
        const refusal = (await response.json().catch(() => ({}))) as {
          error?: string;
          location?: string;
        };
        // An ended flow or an older tab: the server names the way forward.
        if (refusal.location?.startsWith("/")) {
          window.location.assign(refusal.location);
          return;
        }
        throw new Error(refusal.error === "key_changed" ? t("keyChanged") : t("failed"));
      }
      const answer = (await response.json()) as Relay;
      await forgetTabUnlock();
      relay(answer, pair);
    } catch (cause) {
      setBusy(false);
      const wrong = cause instanceof WrongPassphraseError;
      if (wrong) setForgot(true);
      alert.show(
        wrong ? t("wrongPassphrase") : cause instanceof Error ? cause.message : t("failed"),
      );
    }
  }

  if (key.kind === "loading" || (key.kind === "missing" && olderKey === null)) return null;
  if (key.kind === "missing") {
    return (
      <p className="notice key-unlock">
        {t(olderKey ? "olderKeyHere" : "noKeyHere")} <a href="/setup">{t("importKey")}</a>
      </p>
    );
  }
  return (
    <form onSubmit={onSubmit} className="stack key-unlock" noValidate>
      {key.kind === "locked" ? (
        <div className="field">
          <label htmlFor="passphrase">{t("passphraseLabel")}</label>
          <input
            id="passphrase"
            name="passphrase"
            type="password"
            autoComplete="current-password"
            required
            aria-describedby="passphrase-help"
          />
          <span id="passphrase-help" className="field-help">
            {t("passphraseHelp", { partner: props.partner })}
          </span>
        </div>
      ) : (
        <p className="muted small">{t("unlockedHere")}</p>
      )}
      <FocusedAlert error={alert.error} />
      {forgot ? (
        <p>
          <a href="/setup?start-over=1">{t("forgotPassphrase")}</a>
        </p>
      ) : null}
      <p>
        <button type="submit" className="button" disabled={busy}>
          {busy ? t("approving", { partner: props.partner }) : t("approve")}
        </button>
      </p>
    </form>
  );
}

/** Builds and posts the relay form: code, state, iss from the server; the key pair from here. */
function relay(answer: Relay, pair: UserKeyPair) {
  const form = document.createElement("form");
  form.method = "post";
  form.action = answer.redirectUri;
  for (const [name, value] of answer.fields) {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value =
      name === "privateKey" ? pair.privateKey : name === "publicKey" ? pair.publicKey : value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
}

/** What the challenge holds, or null when this key cannot open it (it is not the registered one). */
async function openKeyProof(pair: UserKeyPair, challenge: string): Promise<string | null> {
  try {
    const opened = await openEnvelopeInBrowser<{ proof?: unknown }>(pair.privateKey, challenge);
    return typeof opened.proof === "string" ? opened.proof : null;
  } catch {
    return null;
  }
}
