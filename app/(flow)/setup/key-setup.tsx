"use client";

import { useTranslations } from "next-intl";
import { lazy, Suspense, useCallback, useEffect, useState } from "react";
import {
  backupOf,
  deletePendingSetup,
  installKey,
  isPasskeyHeld,
  loadInstalledKey,
  loadPendingSetup,
  savePendingSetup,
  type InstalledKey,
  type PendingSetup,
} from "@/lib/keys/browser-store";
import { canCreatePasskeyHere } from "@/lib/keys/passkey-ceremony";
import { forgetTabUnlock } from "@/lib/keys/tab-unlock";
import { BackupDownload, BackupStep } from "./backup-step";
import { FocusedAlert, useShownError } from "./focused-alert";
import { NewKeyForm } from "./new-key-form";
import { PasskeyImport } from "./passkey-import";
import { PasskeyKeyForm } from "./passkey-key-form";
import { postKey, type StartOverPath } from "./setup-requests";
import "./setup.css";

// Rarer screens load when first shown, so a first visit (create, backup) downloads less.
const ImportForm = lazy(() => import("./import-form").then((m) => ({ default: m.ImportForm })));

export interface SetupProps {
  /** `passkey`: creating a passkey (its options and its registration); none: no passkey is offered. */
  csrf: { register: string; startOver: string; passkey?: string };
  userId: string;
  email: string;
  registeredPublicKey: string | null;
  issuer: string;
  /** The subject the person's tenant is known by. */
  subject: string;
  partner: string;
  service: string;
  /** Where "Continue" goes once the key is in place. */
  next: string;
  /** Opened from "Forgot your passphrase?": show starting over first. */
  startOver: boolean;
  /** Who can read the data, in plain words: shown on every step. */
  intro: string;
  /** Where replacing the key is posted: the flow's own path unless the page is not a flow's. */
  startOverPath?: StartOverPath;
  /** The flow's id, for a passkey sign-in that brings the key (a flow's page only). */
  flowId?: string;
  /** A passkey of the account holds the registered key: a new browser can get it from there. */
  passkeyHoldsKey?: boolean;
}

type Screen =
  | { kind: "loading" }
  /** A first key, on a device that can keep a passkey: the passkey first, the passphrase offered. */
  | { kind: "passkey" }
  /**
   * A first key with a passphrase. `passkey`: the passkey way can be gone back
   * to; `signInOnly`: a passkey was made but cannot hold the key (no PRF).
   */
  | { kind: "create"; passkey: boolean; signInOnly?: boolean }
  | { kind: "backup"; pending: PendingSetup }
  | { kind: "done"; installed: InstalledKey }
  /** `replaced`: this browser holds an older key of the account, replaced since. */
  | { kind: "import"; replaced: boolean }
  | { kind: "startOver"; back: Screen };

/**
 * Key setup (docs/key-model.md). Every step is kept in IndexedDB as it
 * happens, so a reload or Back resumes where the person was:
 * - create: a passphrase; the key is made and its encrypted backup kept;
 * - backup: download, confirm it is saved; only then is the public key
 *   registered (or, when starting over, the old one replaced);
 * - done: the browser holds the registered key (Back from a later step);
 * - import: the account has a key this browser does not hold (or holds an
 *   older one, replaced when the person started over in another browser);
 * - startOver: no backup or a forgotten passphrase: a new key, the old data gone.
 */
export function KeySetup(props: SetupProps) {
  const t = useTranslations("Setup");
  const [screen, setScreen] = useState<Screen>({ kind: "loading" });
  const [busy, setBusy] = useState(false);
  const alert = useShownError();
  const { userId, registeredPublicKey: registered } = props;

  /** Registers the confirmed key (or replaces the old one) and goes on. */
  const finish = useCallback(
    async (pending: PendingSetup) => {
      setBusy(true);
      const answer = pending.replaces
        ? await postKey(props.startOverPath ?? "/setup/start-over", {
            csrf: props.csrf.startOver,
            replaces: pending.replaces,
            publicKey: pending.backup.publicKey,
          })
        : await postKey("/setup/key", {
            csrf: props.csrf.register,
            publicKey: pending.backup.publicKey,
          });
      if (answer.ok) {
        await installKey(userId, pending.backup);
        window.location.assign(answer.next);
        return;
      }
      setBusy(false);
      if (answer.conflict) {
        // Another browser registered or replaced the key meanwhile: this one can never be registered.
        await deletePendingSetup(userId);
        await forgetTabUnlock();
        setScreen({ kind: "import", replaced: false });
        alert.show(t("keyChanged"));
      } else {
        alert.show(t("failed"));
      }
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `alert` and `t` are stable for this screen
    [userId, props.csrf.register, props.csrf.startOver, props.startOverPath],
  );

  useEffect(() => {
    let cancelled = false;
    async function resume(): Promise<Screen> {
      const [pending, installed] = await Promise.all([
        loadPendingSetup(userId),
        loadInstalledKey(userId),
      ]);
      if (pending) {
        if (pending.backup.publicKey === registered) {
          // Registered, but the page went away before keeping it as the key in use.
          await installKey(userId, pending.backup);
          return { kind: "done", installed: pending.backup };
        }
        if (pending.replaces === registered) {
          if (pending.confirmed) void finish(pending);
          return { kind: "backup", pending };
        }
        // Set up against a key that is no longer the registered one: it can never be registered.
        await deletePendingSetup(userId);
      }
      const passkey = props.csrf.passkey !== undefined && (await canCreatePasskeyHere());
      if (registered === null && installed && isPasskeyHeld(installed)) {
        // Held by a registered passkey, but the page went away before registering the key.
        const answer = await postKey("/setup/key", {
          csrf: props.csrf.register,
          publicKey: installed.publicKey,
          // No backup file on the passkey path.
          backup: false,
        });
        if (answer.ok) {
          window.location.assign(answer.next);
          return { kind: "loading" };
        }
      }
      let shown: Screen;
      if (registered === null) shown = passkey ? { kind: "passkey" } : { kind: "create", passkey };
      else if (installed?.publicKey === registered) shown = { kind: "done", installed };
      else shown = { kind: "import", replaced: installed !== null };
      return props.startOver && registered !== null ? { kind: "startOver", back: shown } : shown;
    }
    resume().then(
      (shown) => {
        if (!cancelled) setScreen(shown);
      },
      () => {
        if (!cancelled) {
          setScreen(
            registered === null
              ? { kind: "create", passkey: false }
              : { kind: "import", replaced: false },
          );
        }
      },
    );
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the token is the page's, fixed
  }, [userId, registered, props.startOver, finish]);

  async function keepPending(pending: PendingSetup) {
    await savePendingSetup(userId, pending);
    setScreen({ kind: "backup", pending });
  }

  const startOverLink = (back: Screen) => (
    <p className="key-setup-aside">
      {t("lostKey")}{" "}
      <button
        type="button"
        className="button-link"
        onClick={() => {
          alert.clear();
          setScreen({ kind: "startOver", back });
        }}
      >
        {t("startOverLink")}
      </button>
    </p>
  );

  // Who can read the data leads on the first screens; where a task is under way
  // (backup, import, starting over) it follows, so the task's action stays in view on a phone.
  const introFirst =
    screen.kind === "loading" ||
    screen.kind === "passkey" ||
    screen.kind === "create" ||
    screen.kind === "done";
  const loading = (
    <p className="muted" role="status">
      {t("loading")}
    </p>
  );
  const intro = <p className={introFirst ? undefined : "key-setup-aside"}>{props.intro}</p>;
  return (
    <>
      {introFirst ? intro : null}
      {render()}
      {introFirst ? null : intro}
    </>
  );

  function render() {
    switch (screen.kind) {
      case "loading":
        return loading;
      case "passkey":
        return props.csrf.passkey === undefined ? null : (
          <PasskeyKeyForm
            {...props}
            csrf={{ ...props.csrf, passkey: props.csrf.passkey }}
            onPassphrase={() => setScreen({ kind: "create", passkey: true })}
            onSignInOnly={() => setScreen({ kind: "create", passkey: false, signInOnly: true })}
            onConflict={() => {
              setScreen({ kind: "import", replaced: false });
              alert.show(t("keyChanged"));
            }}
          />
        );
      case "create":
        return (
          <>
            {screen.signInOnly ? (
              <p className="notice" role="status">
                {t("passkeySignInOnly")}
              </p>
            ) : null}
            <NewKeyForm {...props} onCreated={keepPending} replaces={null} />
            {screen.passkey ? (
              <p className="key-setup-aside">
                <button
                  type="button"
                  className="button-link"
                  onClick={() => setScreen({ kind: "passkey" })}
                >
                  {t("usePasskey")}
                </button>
              </p>
            ) : null}
          </>
        );
      case "startOver":
        return (
          <NewKeyForm
            {...props}
            onCreated={keepPending}
            replaces={registered}
            onCancel={() => setScreen(screen.back)}
          />
        );
      case "backup":
        return (
          <>
            <BackupStep
              userId={userId}
              pending={screen.pending}
              busy={busy}
              showError={alert.show}
              alert={<FocusedAlert error={alert.error} />}
              onKept={(pending) => setScreen({ kind: "backup", pending })}
              onConfirmed={finish}
            />
          </>
        );
      case "done": {
        const backup = backupOf(screen.installed);
        return (
          <section aria-labelledby="done-title" className="stack key-setup">
            <h2 id="done-title">{t("doneTitle")}</h2>
            <p>{!backup && isPasskeyHeld(screen.installed) ? t("donePasskey") : t("doneIntro")}</p>
            <p className="key-setup-actions">
              <a className="button" href={props.next}>
                {t("continue")}
              </a>
            </p>
            {backup ? (
              <p>
                <BackupDownload backup={backup} className="button-secondary">
                  {t("downloadAgain")}
                </BackupDownload>
              </p>
            ) : null}
            {startOverLink(screen)}
          </section>
        );
      }
      case "import":
        return (
          <>
            <FocusedAlert error={alert.error} />
            {props.passkeyHoldsKey && props.flowId ? (
              <PasskeyImport {...props} flowId={props.flowId} />
            ) : null}
            <Suspense fallback={loading}>
              <ImportForm {...props} replaced={screen.replaced} />
            </Suspense>
            {startOverLink(screen)}
          </>
        );
    }
  }
}
