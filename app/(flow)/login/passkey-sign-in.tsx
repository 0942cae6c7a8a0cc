"use client";

import { useTranslations } from "next-intl";
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import {
  assertPasskey,
  canAutofillPasskeys,
  cancelPasskeyCeremony,
  PasskeyCeremonyError,
  passkeysSupported,
} from "@/lib/keys/passkey-ceremony";
import { keepKeyFromPasskeySignIn } from "@/lib/keys/passkey-unlock";
import { FocusedAlert, useShownError } from "../setup/focused-alert";
import { passkeySignIn, signInOptions } from "../_lib/passkey-requests";
import { PasskeyIcon } from "../_components/passkey-icon";

type Refusal = "unknown" | "invalid" | "expired" | "throttled" | "failed";

/** What the page says when a passkey sign-in did not go through, by the service's code. */
const REFUSALS: Record<string, Refusal> = {
  passkey_unknown: "unknown",
  passkey_invalid: "invalid",
  counter_replayed: "invalid",
  challenge_expired: "expired",
  rate_limited: "throttled",
  throttled: "throttled",
};

/**
 * Passkey sign-in on the sign-in page (docs/sessions.md#passkeys): the email
 * field offers the person's passkeys among its suggestions (conditional UI,
 * where the browser has it), and "Sign in with a passkey" opens the system
 * sheet. Neither blocks the mail form: a waiting request is cancelled the
 * moment any form on the page is sent. Signing in with a passkey that holds
 * the key also unlocks it for this tab (a new device included). Without
 * WebAuthn nothing is shown.
 */
export function PasskeySignIn(props: { flowId: string | null; returnUrl: string }) {
  const t = useTranslations("PasskeySignIn");
  // Known in the browser only: the server renders nothing here.
  const supported = useSyncExternalStore(neverChanges, passkeysSupported, () => false);
  const [busy, setBusy] = useState(false);
  const alert = useShownError();
  const leaving = useRef(false);
  const { flowId, returnUrl } = props;

  const signIn = useCallback(
    async (autofill: boolean): Promise<"done" | "stopped"> => {
      const options = await signInOptions();
      if (!options.ok) {
        if (!autofill) alert.show(t(refusalText(options.status, options.error)));
        return "stopped";
      }
      const assertion = await assertPasskey(options.value.options, { autofill });
      if (leaving.current) return "stopped";
      setBusy(true);
      alert.clear();
      const answer = await passkeySignIn({
        challengeId: options.value.challengeId,
        assertion,
        flowId,
        returnUrl,
      });
      if (!answer.ok) {
        setBusy(false);
        alert.show(t(refusalText(answer.status, answer.error)));
        return "stopped";
      }
      leaving.current = true;
      await keepKeyFromPasskeySignIn(answer.value.userId, {
        credentialId: assertion.credentialId,
        prfOutput: assertion.prfOutput,
        wrappedKey: answer.value.wrappedKey,
      });
      window.location.assign(answer.value.next);
      return "done";
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `alert` and `t` are stable for this screen
    [flowId, returnUrl],
  );

  /** The email field's suggestions: waits until a passkey is picked, or the request is cancelled. */
  const offerInAutofill = useCallback(async () => {
    if (leaving.current) return;
    try {
      await signIn(true);
    } catch (error) {
      // Cancelled for another ceremony or a sent form, or refused: the button is still there.
      if (!(error instanceof PasskeyCeremonyError)) setBusy(false);
    }
  }, [signIn]);

  useEffect(() => {
    if (!passkeysSupported()) return;
    // Sending the mail form (or any other) ends a waiting passkey request first.
    const onSubmit = () => {
      leaving.current = true;
      cancelPasskeyCeremony();
    };
    document.addEventListener("submit", onSubmit, true);
    void canAutofillPasskeys().then((autofill) => {
      if (autofill) void offerInAutofill();
    });
    return () => {
      document.removeEventListener("submit", onSubmit, true);
      cancelPasskeyCeremony();
    };
  }, [offerInAutofill]);

  async function onClick() {
    alert.clear();
    setBusy(true);
    try {
      if ((await signIn(false)) === "done") return;
    } catch (error) {
      const reason = error instanceof PasskeyCeremonyError ? error.reason : "failed";
      if (reason !== "aborted") {
        alert.show(t(reason === "cancelled" ? "cancelled" : "failed"));
      }
    }
    setBusy(false);
    // The email field offers passkeys again.
    if (await canAutofillPasskeys()) void offerInAutofill();
  }

  if (!supported) return null;
  return (
    <div className="passkey-sign-in">
      <p className="passkey-or" aria-hidden="true">
        <span>{t("or")}</span>
      </p>
      <FocusedAlert error={alert.error} />
      <button
        type="button"
        className="button-secondary button-block passkey-button"
        onClick={() => void onClick()}
        disabled={busy}
        aria-describedby="passkey-sign-in-help"
      >
        <PasskeyIcon />
        {busy ? t("working") : t("button")}
      </button>
      <p id="passkey-sign-in-help" className="field-help passkey-help">
        {t("help")}
      </p>
    </div>
  );
}

const neverChanges = () => () => {};

function refusalText(status: number, error: string): Refusal {
  if (status === 429) return "throttled";
  return REFUSALS[error] ?? "failed";
}
