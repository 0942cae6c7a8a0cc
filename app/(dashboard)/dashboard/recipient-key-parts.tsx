"use client";

import { useTranslations } from "next-intl";
import type { FormEvent } from "react";
import { DateTime } from "@/app/_components/date-time";
import type { Challenge, Installed } from "./recipient-key-requests";
import { BusyButton } from "./ui/busy-button";
import { ConfirmDialog } from "./ui/confirm-dialog";

/** The installed key's fingerprint and install date, or that there is none. */
export function InstalledKey({ installed }: { installed: Installed | null }) {
  const t = useTranslations("Dashboard.recipientKey");
  if (!installed) return <p>{t("none")}</p>;
  return (
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
  );
}

/** A public key made elsewhere, for which a possession challenge is asked. */
export function ElsewhereKeyForm(props: {
  publicKey: string;
  busy: boolean;
  onChange: (value: string) => void;
  onSubmit: () => void;
}) {
  const t = useTranslations("Dashboard.recipientKey");
  return (
    <form
      className="stack"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
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
          value={props.publicKey}
          onChange={(event) => props.onChange(event.target.value)}
        />
      </div>
      <p className="actions">
        <BusyButton
          type="submit"
          className="button-secondary"
          busy={props.busy}
          busyLabel={t("gettingChallenge")}
        >
          {t("getChallenge")}
        </BusyButton>
      </p>
    </form>
  );
}

/** The challenge's envelope, and its answer that installs the key. */
export function ChallengeForm(props: {
  challenge: Challenge;
  answer: string;
  busy: boolean;
  onChange: (value: string) => void;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
}) {
  const t = useTranslations("Dashboard.recipientKey");
  return (
    <form className="stack" noValidate onSubmit={props.onSubmit}>
      <p>{t("challengeIntro", { fingerprint: props.challenge.fingerprint })}</p>
      <pre className="command">
        <code data-testid="challenge-envelope">{props.challenge.envelope}</code>
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
          value={props.answer}
          onChange={(event) => props.onChange(event.target.value)}
        />
      </div>
      <p className="actions">
        <BusyButton type="submit" busy={props.busy} busyLabel={t("installing")}>
          {t("install")}
        </BusyButton>
      </p>
    </form>
  );
}

/** What replacing the installed key does, confirmed by typing the partner's name. */
export function ReplaceKeyDialog(props: {
  open: boolean;
  busy: boolean;
  partnerName: string;
  fingerprint: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const t = useTranslations("Dashboard.recipientKey");
  return (
    <ConfirmDialog
      open={props.open}
      title={t("replaceTitle")}
      confirmLabel={t("replaceConfirm")}
      busyLabel={t("replacing")}
      busy={props.busy}
      danger
      typeToConfirm={{
        label: t("replaceType", { name: props.partnerName }),
        expected: props.partnerName,
      }}
      onConfirm={props.onConfirm}
      onClose={props.onClose}
    >
      <p>{t("replaceNew")}</p>
      <p>{t("replaceOld", { fingerprint: props.fingerprint })}</p>
      <p>
        <a href="/docs/key-rotation">{t("guide")}</a>
      </p>
    </ConfirmDialog>
  );
}
