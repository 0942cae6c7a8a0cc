"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { generateUserKey } from "@/lib/keys/browser-key";
import { createPasskey, PasskeyCeremonyError } from "@/lib/keys/passkey-ceremony";
import { serializePasskeyWrappedKey, wrapKeyWithPasskey } from "@/lib/keys/passkey-key";
import { keepNewPasskeyKey } from "@/lib/keys/passkey-unlock";
import { PasskeyButton } from "../_components/passkey-button";
import {
  registerOptions,
  registerPasskey,
  type PasskeyAnswer,
  type RegisterOptions,
} from "../_lib/passkey-requests";
import { FocusedAlert, useShownError } from "./focused-alert";
import type { SetupProps } from "./key-setup";
import { passkeyName } from "../_lib/passkey-name";
import { postPasskeyHeldKey } from "./setup-requests";

/** Creation options younger than this are used; older ones are asked for again. */
const OPTIONS_FRESH_MS = 3 * 60 * 1000;

/**
 * The key step's first choice where this device can keep a passkey
 * (docs/key-model.md): one tap makes the key, creates a passkey with the PRF
 * extension, wraps the key with the passkey's PRF output, registers the
 * passkey with the wrapped key, then the key, and goes on to the bank. No
 * passphrase, no file. A passkey whose authenticator gives no PRF output is
 * kept for signing in and the screen goes on to the passphrase
 * (`onSignInOnly`); a closed sheet stays here and says so.
 */
export function PasskeyKeyForm(
  props: SetupProps & {
    csrf: { passkey: string };
    onPassphrase: () => void;
    onSignInOnly: () => void;
    onConflict: () => void;
  },
) {
  const t = useTranslations("Setup");
  const [busy, setBusy] = useState(false);
  const alert = useShownError();
  // Asked for as the screen shows, so the tap opens the system sheet at once
  // (Safari opens it only close to the tap); a challenge lives a few minutes.
  const prepared = useRef<{ at: number; answer: Promise<PasskeyAnswer<RegisterOptions>> } | null>(
    null,
  );
  const { csrf } = props;
  useEffect(() => {
    prepared.current = { at: Date.now(), answer: registerOptions(csrf.passkey) };
  }, [csrf.passkey]);

  function takeOptions() {
    const ready = prepared.current;
    prepared.current = null;
    return ready && Date.now() - ready.at < OPTIONS_FRESH_MS
      ? ready.answer
      : registerOptions(csrf.passkey);
  }

  async function create() {
    alert.clear();
    setBusy(true);
    const stop = (text: string) => {
      setBusy(false);
      alert.show(text);
    };
    try {
      const started = await takeOptions();
      if (!started.ok) return stop(t("passkeyFailed"));
      const [pair, created] = await Promise.all([
        generateUserKey(),
        createPasskey(started.value.options),
      ]);
      const name = passkeyName(navigator.userAgent);
      if (!created.prfOutput) {
        const registered = await registerPasskey({
          csrf: props.csrf.passkey,
          challengeId: started.value.challengeId,
          created,
          name,
          wrappedKey: null,
        });
        if (!registered.ok) return stop(t("passkeyFailed"));
        props.onSignInOnly();
        return;
      }
      const wrapped = await wrapKeyWithPasskey(pair, created.prfOutput);
      const registered = await registerPasskey({
        csrf: props.csrf.passkey,
        challengeId: started.value.challengeId,
        created,
        name,
        wrappedKey: serializePasskeyWrappedKey(wrapped),
      });
      if (!registered.ok) return stop(t("passkeyFailed"));
      await keepNewPasskeyKey(props.userId, pair, { credentialId: created.credentialId, wrapped });
      const answer = await postPasskeyHeldKey(props.csrf.register, pair.publicKey);
      if (answer.ok) {
        window.location.assign(answer.next);
        return;
      }
      setBusy(false);
      if (answer.conflict) props.onConflict();
      else alert.show(t("failed"));
    } catch (error) {
      const reason = error instanceof PasskeyCeremonyError ? error.reason : "failed";
      stop(
        reason === "cancelled"
          ? t("passkeyCancelled")
          : reason === "exists"
            ? t("passkeyExists")
            : t("passkeyFailed"),
      );
    }
  }

  return (
    <section aria-labelledby="passkey-title" className="stack key-setup">
      <h2 id="passkey-title">{t("passkeyTitle")}</h2>
      <ul className="passkey-points">
        <li>{t("passkeyUnlock")}</li>
        <li>{t("passkeyNextTime")}</li>
        <li>{t("passkeySynced")}</li>
      </ul>
      <FocusedAlert error={alert.error} />
      <p className="key-setup-actions">
        <PasskeyButton
          label={t("passkeyCreate")}
          busyLabel={t("passkeyWorking")}
          busy={busy}
          onClick={() => void create()}
        />
        <button
          type="button"
          className="button-link"
          disabled={busy}
          onClick={() => {
            alert.clear();
            props.onPassphrase();
          }}
        >
          {t("usePassphrase")}
        </button>
      </p>
    </section>
  );
}
