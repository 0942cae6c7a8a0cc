"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { openEnvelopeInBrowser } from "@/lib/keys/browser-envelope";
import { generateUserKey } from "@/lib/keys/browser-key";
import { announceChange } from "./changes";

type Challenge = { fingerprint: string; envelope: string };

/**
 * The partner's recipient key (/docs/recipient-keys): generated here (the private half
 * is downloaded as the key file and never sent) or made elsewhere, installed
 * through the possession challenge either way.
 */
export function RecipientKeyPanel(props: {
  partnerId: string;
  csrf: string;
  fingerprint: string | null;
}) {
  const t = useTranslations("Dashboard.recipientKey");
  const [fingerprint, setFingerprint] = useState(props.fingerprint);
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [publicKey, setPublicKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const query = `?partner=${encodeURIComponent(props.partnerId)}`;

  async function call(path: string, method: string, body: unknown) {
    const response = await fetch(`/api/partners/mine/recipient-key${path}${query}`, {
      method,
      headers: { "X-CSRF-Token": props.csrf, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await response.json().catch(() => ({}))) as Record<string, string>;
    if (!response.ok) throw new Error(json.error_description ?? t("failed"));
    return json;
  }

  async function run(action: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (cause) {
      setError(cause instanceof Error ? cause.message : t("failed"));
    } finally {
      setBusy(false);
    }
  }

  const generate = () =>
    run(async () => {
      const pair = await generateUserKey();
      const issued = (await call("/challenge", "POST", { publicKey: pair.publicKey })) as Challenge;
      download(pair, issued.fingerprint);
      const { nonce } = await openEnvelopeInBrowser<{ nonce: string }>(
        pair.privateKey,
        issued.envelope,
      );
      const installed = await call("", "PUT", {
        publicKey: pair.publicKey,
        challengeAnswer: nonce,
      });
      setFingerprint(installed.fingerprint ?? null);
      announceChange();
    });

  const askChallenge = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    void run(async () => {
      setChallenge(
        (await call("/challenge", "POST", { publicKey: publicKey.trim() })) as Challenge,
      );
    });
  };

  const install = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const answer = String(new FormData(event.currentTarget).get("challengeAnswer") ?? "").trim();
    void run(async () => {
      const installed = await call("", "PUT", {
        publicKey: publicKey.trim(),
        challengeAnswer: answer,
      });
      setFingerprint(installed.fingerprint ?? null);
      setChallenge(null);
      announceChange();
    });
  };

  return (
    <section className="card stack" aria-labelledby="key-title">
      <h2 id="key-title">{t("title")}</h2>
      <p role="status">{fingerprint ? t("installed", { fingerprint }) : t("none")}</p>
      <p className="muted small">{t("explain")}</p>
      <p>
        <button type="button" className="button" disabled={busy} onClick={() => void generate()}>
          {busy ? t("working") : t("generate")}
        </button>
      </p>
      <form className="stack" onSubmit={askChallenge} aria-labelledby="elsewhere-title">
        <h3 id="elsewhere-title">{t("elsewhereTitle")}</h3>
        <div className="field">
          <label htmlFor="recipientPublicKey">{t("publicKeyLabel")}</label>
          <input
            id="recipientPublicKey"
            value={publicKey}
            onChange={(event) => setPublicKey(event.target.value)}
          />
        </div>
        <p>
          <button type="submit" className="button-secondary" disabled={busy}>
            {t("getChallenge")}
          </button>
        </p>
      </form>
      {challenge ? (
        <form className="stack" onSubmit={install}>
          <p>{t("challengeIntro", { fingerprint: challenge.fingerprint })}</p>
          <p>
            <code data-testid="challenge-envelope" className="wrap">
              {challenge.envelope}
            </code>
          </p>
          <div className="field">
            <label htmlFor="challengeAnswer">{t("answerLabel")}</label>
            <input id="challengeAnswer" name="challengeAnswer" required />
          </div>
          <p>
            <button type="submit" className="button" disabled={busy}>
              {t("install")}
            </button>
          </p>
        </form>
      ) : null}
      {error ? (
        <p className="alert" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}

/** The key file in the published CLI's shape (/docs/recipient-keys); the private half stays on this machine. */
function download(pair: { privateKey: string; publicKey: string }, fingerprint: string) {
  const file = {
    service: "open-banking.io",
    kind: "partner-recipient-key",
    fingerprint,
    encryptionKey: {
      scheme: "ECDH-P256 + HKDF-SHA256 + AES-256-GCM",
      curve: "P-256",
      privateKeyFormat: "pkcs8-base64",
      privateKey: pair.privateKey,
      publicKey: pair.publicKey,
    },
    createdAt: new Date().toISOString(),
  };
  const link = document.createElement("a");
  link.href = URL.createObjectURL(
    new Blob([JSON.stringify(file, null, 2)], { type: "application/json" }),
  );
  link.download = `recipient-key-${fingerprint}.json`;
  link.click();
  URL.revokeObjectURL(link.href);
}
