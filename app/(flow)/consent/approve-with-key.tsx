"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState, useSyncExternalStore, type FormEvent } from "react";
import { WrongPassphraseError, type UserKeyPair } from "@/lib/keys/browser-key";
import {
  backupOf,
  isPasskeyHeld,
  loadInstalledKey,
  unlockInstalledKey,
} from "@/lib/keys/browser-store";
import { openEnvelopeInBrowser } from "@/lib/keys/browser-envelope";
import { PasskeyCeremonyError, passkeysSupported } from "@/lib/keys/passkey-ceremony";
import { PasskeyKeyError } from "@/lib/keys/passkey-key";
import { unlockWithPasskey } from "@/lib/keys/passkey-unlock";
import { forgetTabUnlock } from "@/lib/keys/tab-unlock";
import { PasskeyButton } from "../_components/passkey-button";
import { PasskeyIcon } from "../_components/passkey-icon";
import { fetchKeyWithPasskey } from "../_lib/passkey-fetch";
import { FocusedAlert, useShownError } from "../setup/focused-alert";
import { useUserKey } from "../account/use-user-key";
import { PasskeyOffer } from "./passkey-offer";
import "../setup/setup.css";

type Relay = { redirectUri: string; fields: [string, string][] };

/**
 * User-key approval (docs/key-model.md): the key that opens the data is only
 * in this browser. If this tab set it up or unlocked it within the last
 * minutes it is used as it is; otherwise the passphrase unlocks it, or, for a
 * key held by a passkey, the same tap that allows (no passphrase). A browser
 * without the key can get it from a passkey that holds it. The server then
 * mints the code, and this page posts the relay (code, state, iss, then
 * privateKey/publicKey filled in here) to the partner. The private key never
 * goes to the service; the tab forgets it once the relay is posted.
 */
export function ApproveWithKey(props: {
  csrf: string;
  userId: string;
  registeredPublicKey: string;
  /** `{proof}` sealed to the registered key: approving sends what is inside. */
  challenge: string;
  partner: string;
  flowId: string;
  passkeys: {
    /** The flow's token for adding a passkey. */
    csrf: string;
    /** A passkey of the account holds the key: a browser without it can get it from there. */
    holdKey: boolean;
    /** Offer adding one (signed in by mail just now, a key and no passkey yet). */
    offer: boolean;
  };
}) {
  const t = useTranslations("Consent");
  const { userId, registeredPublicKey } = props;
  // Unlocked in this tab, locked behind the passphrase, or not in this browser.
  const { key, unlock } = useUserKey(userId, registeredPublicKey);
  const [busy, setBusy] = useState(false);
  const [forgot, setForgot] = useState(false);
  /** A key held by a passkey that also has a passphrase backup: the person chose the passphrase. */
  const [byPassphrase, setByPassphrase] = useState(false);
  const passphraseField = useRef<HTMLInputElement>(null);
  const canUsePasskeys = useSyncExternalStore(neverChanges, passkeysSupported, () => false);
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

  const heldByPasskey = key.kind === "locked" && isPasskeyHeld(key.installed);
  const withPasskey = heldByPasskey && !byPassphrase;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (key.kind !== "unlocked" && key.kind !== "locked") return;
    const passphrase = String(new FormData(event.currentTarget).get("passphrase") ?? "");
    setBusy(true);
    alert.clear();
    try {
      const pair =
        key.kind === "unlocked"
          ? key.pair
          : withPasskey && isPasskeyHeld(key.installed)
            ? await unlockWithPasskey(userId, key.installed)
            : await unlockInstalledKey(key.installed, passphrase);
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
        wrong
          ? t("wrongPassphrase")
          : cause instanceof PasskeyCeremonyError
            ? t(
                cause.reason === "cancelled" || cause.reason === "aborted"
                  ? "passkeyCancelled"
                  : "passkeyFailed",
              )
            : cause instanceof PasskeyKeyError
              ? t("passkeyWrong")
              : cause instanceof Error
                ? cause.message
                : t("failed"),
      );
    }
  }

  /** A browser without the key gets it from a passkey that holds it (../_lib/passkey-fetch.ts). */
  async function fetchWithPasskey() {
    setBusy(true);
    alert.clear();
    const fetched = await fetchKeyWithPasskey(userId, props.flowId);
    if (fetched === "kept") {
      // Shown again, with the key unlocked in this tab.
      window.location.reload();
      return;
    }
    setBusy(false);
    alert.show(
      t(
        fetched === "cancelled"
          ? "passkeyCancelled"
          : fetched === "not_held"
            ? "passkeyWrong"
            : "passkeyFailed",
      ),
    );
  }

  /**
   * For the offer: the passphrase typed below unlocks the key (and keeps it
   * for this tab); null when none is typed, WrongPassphraseError when wrong.
   */
  async function unlockForOffer(): Promise<UserKeyPair | null> {
    const passphrase = passphraseField.current?.value ?? "";
    if (key.kind !== "locked" || passphrase === "") {
      passphraseField.current?.focus();
      return null;
    }
    try {
      const pair = await unlockInstalledKey(key.installed, passphrase);
      await unlock(passphrase);
      return pair;
    } catch (error) {
      passphraseField.current?.focus();
      throw error;
    }
  }

  if (key.kind === "loading" || (key.kind === "missing" && olderKey === null)) return null;
  if (key.kind === "missing") {
    return (
      <div className="action-bar">
        <div className="stack key-unlock">
          <p className="notice">
            {t(olderKey ? "olderKeyHere" : "noKeyHere")} <a href="/setup">{t("importKey")}</a>
          </p>
          {props.passkeys.holdKey && canUsePasskeys ? (
            <>
              <FocusedAlert error={alert.error} />
              <p>
                <PasskeyButton
                  label={t("passkeyFetch")}
                  busyLabel={t("passkeyWorking")}
                  busy={busy}
                  onClick={() => void fetchWithPasskey()}
                />
              </p>
            </>
          ) : null}
        </div>
      </div>
    );
  }
  const askPassphrase = key.kind === "locked" && !withPasskey;
  return (
    <>
      {props.passkeys.offer && !heldByPasskey ? (
        <PasskeyOffer
          userId={userId}
          csrf={props.passkeys.csrf}
          pair={key.kind === "unlocked" ? key.pair : null}
          installed={key.kind === "locked" ? key.installed : null}
          unlock={unlockForOffer}
        />
      ) : null}
      <div className="action-bar">
        <form onSubmit={onSubmit} className="stack key-unlock" noValidate>
          {askPassphrase ? (
            <div className="field">
              <label htmlFor="passphrase">{t("passphraseLabel")}</label>
              <input
                ref={passphraseField}
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
            <p className="muted small">{t(withPasskey ? "passkeyHelp" : "unlockedHere")}</p>
          )}
          <FocusedAlert error={alert.error} />
          {forgot ? (
            <p>
              <a href="/setup?start-over=1">{t("forgotPassphrase")}</a>
            </p>
          ) : null}
          <p className="key-setup-actions">
            <button
              type="submit"
              className={withPasskey ? "button passkey-button" : "button"}
              disabled={busy}
            >
              {withPasskey ? <PasskeyIcon /> : null}
              {busy ? t("approving", { partner: props.partner }) : t("approve")}
            </button>
            {withPasskey && key.kind === "locked" && backupOf(key.installed) ? (
              <button
                type="button"
                className="button-link"
                onClick={() => {
                  alert.clear();
                  setByPassphrase(true);
                }}
              >
                {t("usePassphraseInstead")}
              </button>
            ) : null}
          </p>
        </form>
      </div>
    </>
  );
}

const neverChanges = () => () => {};

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
