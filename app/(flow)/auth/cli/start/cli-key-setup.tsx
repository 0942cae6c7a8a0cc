"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import {
  installKey,
  loadPendingSetup,
  savePendingSetup,
  type PendingSetup,
} from "@/lib/keys/browser-store";
import { BackupStep } from "../../../setup/backup-step";
import { FocusedAlert, useShownError } from "../../../setup/focused-alert";
import { NewKeyForm } from "../../../setup/new-key-form";
import "../../../setup/setup.css";

type Screen = { kind: "loading" } | { kind: "create" } | { kind: "backup"; pending: PendingSetup };

/**
 * Key setup on the command-line sign-in's page, for a person who has no key
 * yet: the flow's own steps (a passphrase, the key made in this browser, its
 * encrypted backup downloaded and confirmed), then only the public half is
 * registered (POST /auth/cli/key) and the page asks whether to allow the
 * program. A setup left half-way is resumed from this browser's store.
 */
export function CliKeySetup(props: {
  csrf: string;
  userId: string;
  email: string;
  issuer: string;
  subject: string;
  service: string;
  intro: string;
}) {
  const t = useTranslations("Setup");
  const [screen, setScreen] = useState<Screen>({ kind: "loading" });
  const [busy, setBusy] = useState(false);
  const alert = useShownError();
  const { userId } = props;

  useEffect(() => {
    let cancelled = false;
    loadPendingSetup(userId).then(
      (pending) => {
        if (cancelled) return;
        setScreen(
          pending && pending.replaces === null ? { kind: "backup", pending } : { kind: "create" },
        );
      },
      () => !cancelled && setScreen({ kind: "create" }),
    );
    return () => {
      cancelled = true;
    };
  }, [userId]);

  async function register(pending: PendingSetup) {
    setBusy(true);
    const response = await fetch("/auth/cli/key", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ csrf: props.csrf, publicKey: pending.backup.publicKey }),
    }).catch(() => null);
    if (response?.ok) {
      await installKey(userId, pending.backup);
      window.location.reload();
      return;
    }
    setBusy(false);
    alert.show(response?.status === 409 ? t("keyChanged") : t("failed"));
  }

  const setupProps = {
    csrf: { register: props.csrf, startOver: props.csrf },
    userId,
    email: props.email,
    registeredPublicKey: null,
    issuer: props.issuer,
    subject: props.subject,
    partner: props.service,
    service: props.service,
    next: "",
    startOver: false,
    intro: props.intro,
  };

  return (
    <>
      <p>{props.intro}</p>
      {screen.kind === "loading" ? (
        <p className="muted" role="status">
          {t("loading")}
        </p>
      ) : screen.kind === "create" ? (
        <NewKeyForm
          {...setupProps}
          replaces={null}
          onCreated={async (pending) => {
            await savePendingSetup(userId, pending);
            setScreen({ kind: "backup", pending });
          }}
        />
      ) : (
        <BackupStep
          userId={userId}
          pending={screen.pending}
          busy={busy}
          showError={alert.show}
          alert={<FocusedAlert error={alert.error} />}
          onKept={(pending) => setScreen({ kind: "backup", pending })}
          onConfirmed={register}
        />
      )}
    </>
  );
}
