"use client";

import { useTranslations } from "next-intl";
import {
  ChallengeForm,
  ElsewhereKeyForm,
  InstalledKey,
  ReplaceKeyDialog,
} from "./recipient-key-parts";
import type { Installed } from "./recipient-key-requests";
import { BusyButton } from "./ui/busy-button";
import { FormAlert } from "./ui/form-alert";
import { useRecipientKey } from "./use-recipient-key";

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
  const key = useRecipientKey({ partnerId: props.partnerId, csrf: props.csrf }, props.installed);

  return (
    <section id="decryption-key" className="card stack" aria-labelledby="key-title">
      <h2 id="key-title">{t("title")}</h2>
      <InstalledKey installed={key.installed} />
      <p className="muted small">
        {t("explain")} <a href="/docs/key-rotation">{t("guide")}</a>
      </p>
      <FormAlert items={key.problems} />
      <p role="status" className="save-status" data-testid="key-status">
        {key.status}
      </p>
      <p className="actions">
        <BusyButton
          busy={key.busy === "generate"}
          busyLabel={t("generating")}
          onClick={() => key.guarded("generate")}
        >
          {key.installed ? t("generateNew") : t("generate")}
        </BusyButton>
      </p>
      <ElsewhereKeyForm
        publicKey={key.publicKey}
        busy={key.busy === "challenge"}
        onChange={key.setPublicKey}
        onSubmit={() => {
          if (!key.busy) key.guarded("challenge");
        }}
      />
      {key.challenge ? (
        <ChallengeForm
          challenge={key.challenge}
          answer={key.answer}
          busy={key.busy === "install"}
          onChange={key.setAnswer}
          onSubmit={key.install}
        />
      ) : null}
      <ReplaceKeyDialog
        open={key.pending !== null}
        busy={key.busy !== null}
        partnerName={props.partnerName}
        fingerprint={key.installed?.fingerprint ?? ""}
        onConfirm={key.confirmReplace}
        onClose={key.cancelReplace}
      />
    </section>
  );
}
