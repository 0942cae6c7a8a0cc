"use client";

import { useTranslations } from "next-intl";
import { useState, type FormEvent } from "react";
import { DateTime } from "@/app/_components/date-time";
import { openEnvelopeInBrowser } from "@/lib/keys/browser-envelope";
import { generateUserKey } from "@/lib/keys/browser-key";
import { announceChange } from "./changes";
import { BusyButton } from "./ui/busy-button";
import { ConfirmDialog } from "./ui/confirm-dialog";
import { useProblems } from "./ui/errors";
import { FormAlert } from "./ui/form-alert";
import { send, type Answer } from "./ui/request";

type Challenge = { fingerprint: string; envelope: string };
type Installed = { fingerprint: string; installedAt: string | null };
type Step = "generate" | "challenge" | "install";

/** Raised inside an action with the refused answer, so the panel can say why. */
class Refused extends Error {
  constructor(readonly answer: Answer) {
    super("refused");
  }
}

/**
 * The partner's decryption key: its fingerprint (SHA-256 of the public key,
 * short form) and install date; a key generated here (the private half is
 * downloaded as the key file and never sent) or made elsewhere, installed
 * through the possession challenge. Replacing an installed key first needs a
 * confirmation that says what happens and the partner's name typed, and the
 * install names the key it replaces, so it never replaces another.
 */
export function RecipientKeyPanel(props: {
  partnerId: string;
  partnerName: string;
  csrf: string;
  installed: Installed | null;
}) {
  const t = useTranslations("Dashboard.recipientKey");
  const problemsOf = useProblems();
  const endpoint = { partnerId: props.partnerId, csrf: props.csrf };
  const [installed, setInstalled] = useState(props.installed);
  const [challenge, setChallenge] = useState<Challenge | null>(null);
  const [publicKey, setPublicKey] = useState("");
  const [answer, setAnswer] = useState("");
  const [problems, setProblems] = useState<string[]>([]);
  const [status, setStatus] = useState("");
  const [busy, setBusy] = useState<Step | null>(null);
  /** The action waiting for the replacement to be confirmed. */
  const [pending, setPending] = useState<Step | null>(null);
  /** The fingerprint the owner confirmed replacing (null: none was installed). */
  const [replaces, setReplaces] = useState<string | null>(null);

  async function call<T>(path: string, method: string, json: unknown): Promise<T> {
    const answered = await send<T>(endpoint, `/api/partners/mine/recipient-key${path}`, {
      method,
      json,
    });
    if (!answered.ok) throw new Refused(answered as Answer);
    return answered.body;
  }

  async function run(step: Step, action: () => Promise<void>) {
    setBusy(step);
    setProblems([]);
    setStatus("");
    try {
      await action();
    } catch (cause) {
      const refused = cause instanceof Refused ? cause.answer : { ok: false, status: 0, body: {} };
      setProblems(problemsOf("branding", refused).general);
    } finally {
      setBusy(null);
      setPending(null);
    }
  }

  function done(fingerprint: string, installedAt: string, message: string) {
    setInstalled({ fingerprint, installedAt });
    setChallenge(null);
    setPublicKey("");
    setAnswer("");
    setStatus(message);
    announceChange();
  }

  /** Runs `step` now, or after the replacement confirmation when a key is installed. */
  function guarded(step: Step) {
    if (installed && step !== "install") setPending(step);
    else void perform(step, installed?.fingerprint ?? null);
  }

  function perform(step: Step, confirmedReplaces: string | null) {
    setReplaces(confirmedReplaces);
    if (step === "generate") {
      return run("generate", async () => {
        const pair = await generateUserKey();
        const issued = await call<Challenge>("/challenge", "POST", { publicKey: pair.publicKey });
        // The key file is saved before the key is installed: an installed key
        // whose private half was never saved would seal users' data to nobody.
        const file = download(pair, issued.fingerprint);
        const { nonce } = await openEnvelopeInBrowser<{ nonce: string }>(
          pair.privateKey,
          issued.envelope,
        );
        const result = await call<Installed & { installedAt: string }>("", "PUT", {
          publicKey: pair.publicKey,
          challengeAnswer: nonce,
          replaces: confirmedReplaces,
        });
        done(
          result.fingerprint,
          result.installedAt,
          t("generated", { fingerprint: result.fingerprint, file }),
        );
      });
    }
    return run("challenge", async () => {
      setChallenge(await call<Challenge>("/challenge", "POST", { publicKey: publicKey.trim() }));
    });
  }

  const install = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    void run("install", async () => {
      const result = await call<Installed & { installedAt: string }>("", "PUT", {
        publicKey: publicKey.trim(),
        challengeAnswer: answer.trim(),
        replaces,
      });
      done(
        result.fingerprint,
        result.installedAt,
        t("installedNow", { fingerprint: result.fingerprint }),
      );
    });
  };

  return (
    <section id="decryption-key" className="card stack" aria-labelledby="key-title">
      <h2 id="key-title">{t("title")}</h2>
      {installed ? (
        <dl className="key-facts" data-testid="installed-key">
          <div>
            <dt>{t("fingerprint")}</dt>
            <dd>
              <code data-testid="key-fingerprint">{installed.fingerprint}</code>
            </dd>
          </div>
          {installed.installedAt ? (
            <div>
              <dt>{t("installedAt")}</dt>
              <dd>
                <DateTime value={installed.installedAt} />
              </dd>
            </div>
          ) : null}
        </dl>
      ) : (
        <p>{t("none")}</p>
      )}
      <p className="muted small">
        {t("explain")} <a href="/docs/key-rotation">{t("guide")}</a>
      </p>
      <FormAlert items={problems} />
      <p role="status" className="save-status" data-testid="key-status">
        {status}
      </p>
      <p className="actions">
        <BusyButton
          busy={busy === "generate"}
          busyLabel={t("generating")}
          onClick={() => guarded("generate")}
        >
          {installed ? t("generateNew") : t("generate")}
        </BusyButton>
      </p>
      <form
        className="stack"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          if (!busy) guarded("challenge");
        }}
        aria-labelledby="elsewhere-title"
      >
        <h3 id="elsewhere-title">{t("elsewhereTitle")}</h3>
        <div className="field">
          <label htmlFor="recipientPublicKey">{t("publicKeyLabel")}</label>
          <input
            id="recipientPublicKey"
            type="text"
            autoComplete="off"
            spellCheck={false}
            value={publicKey}
            onChange={(event) => setPublicKey(event.target.value)}
          />
        </div>
        <p className="actions">
          <BusyButton
            type="submit"
            className="button-secondary"
            busy={busy === "challenge"}
            busyLabel={t("gettingChallenge")}
          >
            {t("getChallenge")}
          </BusyButton>
        </p>
      </form>
      {challenge ? (
        <form className="stack" noValidate onSubmit={install}>
          <p>{t("challengeIntro", { fingerprint: challenge.fingerprint })}</p>
          <pre className="command">
            <code data-testid="challenge-envelope">{challenge.envelope}</code>
          </pre>
          <div className="field">
            <label htmlFor="challengeAnswer">{t("answerLabel")}</label>
            <input
              id="challengeAnswer"
              name="challengeAnswer"
              type="text"
              autoComplete="off"
              spellCheck={false}
              required
              value={answer}
              onChange={(event) => setAnswer(event.target.value)}
            />
          </div>
          <p className="actions">
            <BusyButton type="submit" busy={busy === "install"} busyLabel={t("installing")}>
              {t("install")}
            </BusyButton>
          </p>
        </form>
      ) : null}
      <ConfirmDialog
        open={pending !== null}
        title={t("replaceTitle")}
        confirmLabel={t("replaceConfirm")}
        busyLabel={t("replacing")}
        busy={busy !== null}
        danger
        typeToConfirm={{
          label: t("replaceType", { name: props.partnerName }),
          expected: props.partnerName,
        }}
        onConfirm={() => {
          if (pending) void perform(pending, installed?.fingerprint ?? null);
        }}
        onClose={() => setPending(null)}
      >
        <p>{t("replaceNew")}</p>
        <p>{t("replaceOld", { fingerprint: installed?.fingerprint ?? "" })}</p>
        <p>
          <a href="/docs/key-rotation">{t("guide")}</a>
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** Saves the key file in the published CLI's shape; the private half stays on this machine. Returns its name. */
function download(pair: { privateKey: string; publicKey: string }, fingerprint: string): string {
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
  const name = `recipient-key-${fingerprint}.json`;
  const link = document.createElement("a");
  link.href = URL.createObjectURL(
    new Blob([JSON.stringify(file, null, 2)], { type: "application/json" }),
  );
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
  return name;
}
