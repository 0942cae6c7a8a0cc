"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { WrongPassphraseError, type UserKeyPair } from "@/lib/keys/browser-key";
import {
  canCreatePasskeyHere,
  createPasskey,
  PasskeyCeremonyError,
} from "@/lib/keys/passkey-ceremony";
import { serializePasskeyWrappedKey, wrapKeyWithPasskey } from "@/lib/keys/passkey-key";
import { keepNewPasskeyKey } from "@/lib/keys/passkey-unlock";
import { backupOf, type InstalledKey } from "@/lib/keys/browser-store";
import { PasskeyIcon } from "../_components/passkey-icon";
import { registerOptions, registerPasskey } from "../_lib/passkey-requests";
import { passkeyName } from "../_lib/passkey-name";
import { FocusedAlert, useShownError } from "../setup/focused-alert";

/** Where this browser remembers whom it offered a passkey to (user ids). */
const OFFERED = "bank-connect.passkey-offered";

function wasOffered(userId: string): boolean {
  try {
    return (JSON.parse(localStorage.getItem(OFFERED) ?? "[]") as unknown[]).includes(userId);
  } catch {
    return false;
  }
}

function rememberOffered(userId: string): void {
  try {
    const known = JSON.parse(localStorage.getItem(OFFERED) ?? "[]") as unknown[];
    localStorage.setItem(OFFERED, JSON.stringify([...known.slice(-19), userId]));
  } catch {
    // Without storage the offer may come again; nothing else depends on it.
  }
}

type State =
  { kind: "hidden" } | { kind: "offer"; busy: boolean } | { kind: "added"; holdsKey: boolean };

/**
 * The one-time offer to add a passkey (docs/key-model.md), for a person who
 * signed in by mail, has a key and no passkey yet, on a device that can keep
 * one: next time a tap signs them in and unlocks the key. The new passkey
 * holds the key when it is unlocked in this tab, or once the passphrase
 * typed below unlocks it (`unlock`); without a PRF output it only signs in.
 * Shown once per person in this browser, and "Not now" hides it.
 */
export function PasskeyOffer(props: {
  userId: string;
  csrf: string;
  /** The key when this tab holds it unlocked. */
  pair: UserKeyPair | null;
  /** The stored key, locked behind the passphrase. */
  installed: InstalledKey | null;
  /** Unlocks with the passphrase typed in the approval form: null when none is typed. */
  unlock: () => Promise<UserKeyPair | null>;
}) {
  const t = useTranslations("Consent");
  const [state, setState] = useState<State>({ kind: "hidden" });
  const alert = useShownError();
  const { userId } = props;

  useEffect(() => {
    if (wasOffered(userId)) return;
    let cancelled = false;
    canCreatePasskeyHere().then(
      (can) => {
        if (!can || cancelled) return;
        rememberOffered(userId);
        setState({ kind: "offer", busy: false });
      },
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [userId]);

  if (state.kind === "hidden") return null;
  if (state.kind === "added") {
    return (
      <p className="alert alert-success passkey-added" role="status">
        {t(state.holdsKey ? "offerAdded" : "offerAddedSignIn")}
      </p>
    );
  }

  const locked = props.pair === null;
  async function add() {
    alert.clear();
    setState({ kind: "offer", busy: true });
    const stop = (text: string | null) => {
      setState({ kind: "offer", busy: false });
      if (text) alert.show(text);
    };
    try {
      // The key first: a passkey added now should hold it.
      const pair =
        props.pair ?? (props.installed && backupOf(props.installed) ? await props.unlock() : null);
      if (!pair) return stop(t("offerNeedsPassphrase"));
      const started = await registerOptions(props.csrf);
      if (!started.ok) return stop(t("offerFailed"));
      const created = await createPasskey(started.value.options);
      const wrapped = created.prfOutput ? await wrapKeyWithPasskey(pair, created.prfOutput) : null;
      const registered = await registerPasskey({
        csrf: props.csrf,
        challengeId: started.value.challengeId,
        created,
        name: passkeyName(navigator.userAgent),
        wrappedKey: wrapped ? serializePasskeyWrappedKey(wrapped) : null,
      });
      if (!registered.ok) return stop(t("offerFailed"));
      if (wrapped) {
        await keepNewPasskeyKey(userId, pair, { credentialId: created.credentialId, wrapped });
      }
      setState({ kind: "added", holdsKey: wrapped !== null });
    } catch (error) {
      if (error instanceof WrongPassphraseError) return stop(t("wrongPassphrase"));
      const reason = error instanceof PasskeyCeremonyError ? error.reason : "failed";
      stop(
        reason === "cancelled"
          ? t("offerCancelled")
          : reason === "aborted"
            ? null
            : t("offerFailed"),
      );
    }
  }

  return (
    <section className="passkey-offer" aria-labelledby="passkey-offer-title">
      <h2 id="passkey-offer-title">
        <PasskeyIcon />
        {t("offerTitle")}
      </h2>
      <p>{t(locked ? "offerBodyLocked" : "offerBody")}</p>
      <FocusedAlert error={alert.error} />
      <p className="key-setup-actions">
        <button
          type="button"
          className="button-secondary"
          disabled={state.busy}
          onClick={() => void add()}
        >
          {state.busy ? t("offerWorking") : t("offerAdd")}
        </button>
        <button
          type="button"
          className="button-link"
          disabled={state.busy}
          onClick={() => setState({ kind: "hidden" })}
        >
          {t("offerLater")}
        </button>
      </p>
    </section>
  );
}
