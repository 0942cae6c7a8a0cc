"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState, type FormEvent } from "react";
import {
  loadWrappedKey,
  unwrapPrivateKey,
  WrongPassphraseError,
  type WrappedKey,
} from "@/lib/keys/browser-key";

type Relay = { redirectUri: string; fields: [string, string][] };

/**
 * User-key mode approval (DESIGN.md §6.5): unlock the key with the passphrase,
 * have the server mint the code, then post the relay (SPEC 2.2 order) to the
 * partner from this page with privateKey/publicKey filled in here. The private
 * key never goes to the service.
 */
export function ApproveWithKey(props: {
  csrf: string;
  userId: string;
  registeredPublicKey: string;
  partner: string;
}) {
  const t = useTranslations("Consent");
  const [wrapped, setWrapped] = useState<WrappedKey | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    loadWrappedKey(props.userId).then(
      (found) => setWrapped(found && found.publicKey === props.registeredPublicKey ? found : null),
      () => setWrapped(null),
    );
  }, [props.userId, props.registeredPublicKey]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!wrapped) return;
    const passphrase = String(new FormData(event.currentTarget).get("passphrase") ?? "");
    setBusy(true);
    setError(null);
    try {
      const pair = await unwrapPrivateKey(wrapped, passphrase);
      const response = await fetch("/consent/approve", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ csrf: props.csrf }),
      });
      if (!response.ok) throw new Error("approval failed");
      relay((await response.json()) as Relay, pair);
    } catch (cause) {
      setBusy(false);
      setError(cause instanceof WrongPassphraseError ? t("wrongPassphrase") : t("failed"));
    }
  }

  if (wrapped === undefined) return null;
  if (wrapped === null) {
    return (
      <p className="notice">
        {t("noKeyHere")} <a href="/setup">{t("importKey")}</a>
      </p>
    );
  }
  return (
    <form onSubmit={onSubmit} className="stack">
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
      {error ? (
        <p className="alert" role="alert">
          {error}
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
function relay(answer: Relay, pair: { privateKey: string; publicKey: string }) {
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
