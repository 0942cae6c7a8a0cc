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
import { PasskeyButton } from "../_components/passkey-button";

type Refusal = "unknown" | "invalid" | "expired" | "throttled" | "failed";

/** A passkey of another account than the address on the page: which one is meant. */
type OtherAccount = { email: string; expected: string };

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
 *
 * A passkey the service no longer knows (removed at /account) signs nobody
 * in: the page says so, the browser is told to forget it where it can
 * (`signalUnknownCredential`), and the email field is ready for the mail. A
 * passkey of another account than the address on the page (typed, or the
 * partner's login_hint) signs nobody in either: the page names the
 * passkey's account and asks which one is meant, before anything is shared.
 */
export function PasskeySignIn(props: { flowId: string | null; returnUrl: string }) {
  const t = useTranslations("PasskeySignIn");
  // Known in the browser only: the server renders nothing here.
  const supported = useSyncExternalStore(neverChanges, passkeysSupported, () => false);
  const [busy, setBusy] = useState(false);
  const alert = useShownError();
  const [gone, setGone] = useState(0);
  const [other, setOther] = useState<OtherAccount | null>(null);
  const otherRef = useRef<HTMLDivElement>(null);
  const leaving = useRef(false);
  const { flowId, returnUrl } = props;

  const signIn = useCallback(
    async (autofill: boolean, anyAccount = false): Promise<"done" | "stopped" | "asked"> => {
      const options = await signInOptions();
      if (!options.ok) {
        if (!autofill) alert.show(t(refusalText(options.status, options.error)));
        return "stopped";
      }
      const assertion = await assertPasskey(options.value.options, { autofill });
      if (leaving.current) return "stopped";
      setBusy(true);
      alert.clear();
      setGone(0);
      setOther(null);
      const expected = anyAccount ? "" : (emailField()?.value.trim() ?? "");
      const answer = await passkeySignIn({
        challengeId: options.value.challengeId,
        assertion,
        flowId,
        returnUrl,
        expectEmail: expected || null,
      });
      if (!answer.ok) {
        setBusy(false);
        if (answer.error === "other_account" && answer.email) {
          setOther({ email: answer.email, expected });
        } else if (answer.error === "passkey_unknown") {
          forgetPasskey(assertion.credentialId);
          setGone((seq) => seq + 1);
        } else {
          alert.show(t(refusalText(answer.status, answer.error)));
          return "stopped";
        }
        // The page now asks for the person's choice: no passkey request waits beside it.
        return "asked";
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

  // The passkey is gone: the mail sign-in, its address ready.
  useEffect(() => {
    if (gone === 0) return;
    const field = emailField();
    field?.focus();
    field?.select();
  }, [gone]);

  useEffect(() => {
    if (other) otherRef.current?.focus();
  }, [other]);

  /** The address on the page is meant: the email field, ready. */
  function useExpected() {
    setOther(null);
    const field = emailField();
    field?.focus();
    field?.select();
  }

  async function onClick(anyAccount = false) {
    alert.clear();
    setGone(0);
    setOther(null);
    setBusy(true);
    try {
      const outcome = await signIn(false, anyAccount);
      if (outcome === "done") return;
      if (outcome === "asked") return setBusy(false);
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
      {gone > 0 ? (
        <p className="alert passkey-gone" role="alert">
          {t("unknown")}
        </p>
      ) : null}
      {other ? (
        <div
          ref={otherRef}
          className="notice passkey-other-account"
          role="alert"
          tabIndex={-1}
          aria-labelledby="passkey-other-account-title"
        >
          <p id="passkey-other-account-title" className="alert-title wrap">
            {t("otherAccountTitle", { email: other.email })}
          </p>
          <p className="wrap">{t("otherAccount", { expected: other.expected })}</p>
          <p className="passkey-other-actions">
            <button
              type="button"
              className="button button-block"
              onClick={() => void onClick(true)}
              disabled={busy}
            >
              {t("continueAs", { email: other.email })}
            </button>
            <button type="button" className="button-secondary button-block" onClick={useExpected}>
              {t("useExpected", { email: other.expected })}
            </button>
          </p>
        </div>
      ) : null}
      {other ? null : (
        <>
          <PasskeyButton
            className="button-secondary button-block"
            label={t("button")}
            busyLabel={t("working")}
            busy={busy}
            onClick={() => void onClick()}
            aria-describedby="passkey-sign-in-help"
          />
          <p id="passkey-sign-in-help" className="field-help passkey-help">
            {t("help")}
          </p>
        </>
      )}
    </div>
  );
}

const neverChanges = () => () => {};

const emailField = () => document.querySelector<HTMLInputElement>("input#email");

/**
 * Tells the person's authenticator that the service no longer knows this
 * passkey, so it stops offering it (the WebAuthn signal API, where the
 * browser has it; nothing otherwise).
 */
function forgetPasskey(credentialId: string) {
  const signal = (
    PublicKeyCredential as unknown as {
      signalUnknownCredential?: (options: { rpId: string; credentialId: string }) => Promise<void>;
    }
  ).signalUnknownCredential;
  if (typeof signal !== "function") return;
  void signal
    .call(PublicKeyCredential, { rpId: window.location.hostname, credentialId })
    .catch(() => undefined);
}

function refusalText(status: number, error: string): Refusal {
  if (status === 429) return "throttled";
  return REFUSALS[error] ?? "failed";
}
