"use client";

import { useLocale, useTranslations } from "next-intl";
import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { WrongPassphraseError } from "@/lib/keys/browser-key";
import { isPasskeyHeld } from "@/lib/keys/browser-store";
import { unlockedInTab } from "@/lib/keys/tab-unlock";
import { PasskeyIcon } from "../_components/passkey-icon";
import { passkeyName } from "../_lib/passkey-name";
import { FocusedAlert, useShownError } from "../setup/focused-alert";
import { BackupMaker } from "./backup-maker";
import { ConfirmAction } from "./confirm-action";
import {
  addPasskey,
  loadPasskeys,
  removePasskey,
  type AddOutcome,
  type PasskeyItem,
} from "./passkey-requests";
import { passphraseOpens, takeUnlockNotice, useUserKey, type PasskeyUnlock } from "./use-user-key";

/**
 * Passkeys on My access (docs/account.md#passkeys): each passkey of the
 * person with when it was made and last used, whether it is synced across
 * their devices or bound to one, and whether it holds their key; adding one
 * (it holds the key when this tab has the key unlocked and the authenticator
 * supports PRF), removing one, and the passphrase backup file as the second
 * way back to the key. The service refuses to remove the last passkey holding
 * the key while no backup was saved: the page then explains and offers the
 * backup first, with starting over as the last resort.
 */
export function PasskeyPanel(props: {
  userId: string;
  email: string;
  /** The registered key, or null before key setup. */
  publicKey: string | null;
  /** When a saved backup file was last confirmed (ISO), or null. */
  backupAt: string | null;
  issuer: string;
  service: string;
  csrf: { add: string; remove: string; backupSaved: string };
}) {
  const t = useTranslations("Account.passkeys");
  const backupText = useTranslations("Account.backup");
  const locale = useLocale();
  const { key, unlock, unlockByPasskey } = useUserKey(props.userId, props.publicKey);
  const [items, setItems] = useState<PasskeyItem[] | "loading" | "failed">("loading");
  const [backupAt, setBackupAt] = useState(props.backupAt);
  const [makingBackup, setMakingBackup] = useState(false);
  /** The key was just brought here by a passkey sign-in: the backup file is next. */
  const [arrivedUnlocked, setArrivedUnlocked] = useState(false);
  const [confirming, setConfirming] = useState<string | null>(null);
  /** The passkey the service would not remove: the last holder of the key. */
  const [blocked, setBlocked] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ text: string; seq: number } | null>(null);
  const alert = useShownError();
  const statusRef = useRef<HTMLParagraphElement>(null);
  const blockedRef = useRef<HTMLHeadingElement>(null);

  const day = (iso: string) =>
    new Intl.DateTimeFormat(locale, { dateStyle: "medium" }).format(new Date(iso));
  const say = (text: string) => setStatus((previous) => ({ text, seq: (previous?.seq ?? 0) + 1 }));

  const refresh = useCallback(async () => {
    const found = await loadPasskeys();
    setItems(found ?? "failed");
    return found;
  }, []);

  useEffect(() => {
    let cancelled = false;
    void loadPasskeys().then((found) => {
      if (cancelled) return;
      setItems(found ?? "failed");
      // Back from a passkey sign-in that was to bring the key here (use-user-key.ts).
      const notice = takeUnlockNotice();
      if (notice === "not_held") alert.show(backupText("passkeyNotHeld"));
      setArrivedUnlocked(notice === "unlocked");
    });
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `alert` and `backupText` are stable for this page
  }, []);

  useEffect(() => {
    if (status) statusRef.current?.focus();
  }, [status]);

  useEffect(() => {
    if (blocked) blockedRef.current?.focus();
  }, [blocked]);

  const list = Array.isArray(items) ? items : [];
  const hasKey = props.publicKey !== null;
  // A key this browser keeps: a passkey-held one opens with a tap, any other with the passphrase.
  const passkeyLocked = key.kind === "locked" && isPasskeyHeld(key.installed);
  const passphraseLocked =
    key.kind === "locked" && !passkeyLocked && passphraseOpens(key.installed);
  const anyHoldsKey = list.some((item) => item.holdsKey);

  function addedText(outcome: Extract<AddOutcome, { kind: "added" }>, name: string) {
    if (outcome.holdsKey) return t("addedHolds", { name });
    if (!hasKey) return t("added", { name });
    return outcome.prf ? t("addedSignIn", { name }) : t("addedNoPrf", { name });
  }

  async function add(event?: FormEvent<HTMLFormElement>) {
    event?.preventDefault();
    alert.clear();
    setBusy(true);
    if (event && passphraseLocked) {
      // The key's passphrase, so that the new passkey can hold the key.
      const passphrase = String(new FormData(event.currentTarget).get("passphrase") ?? "");
      try {
        if (!(await unlock(passphrase))) throw new WrongPassphraseError();
      } catch (error) {
        setBusy(false);
        return alert.show(
          error instanceof WrongPassphraseError ? t("wrongPassphrase") : t("failed"),
        );
      }
    }
    if (passkeyLocked) {
      // A tap on a passkey that holds the key first, so that the new one can hold it too.
      const unlocked = await unlockByPasskey();
      if (unlocked !== "unlocked") {
        setBusy(false);
        return alert.show(unlockText(unlocked));
      }
    }
    const name = passkeyName(navigator.userAgent);
    const outcome = await addPasskey({
      userId: props.userId,
      csrf: props.csrf.add,
      name,
      pair: await unlockedPair(),
    });
    setBusy(false);
    switch (outcome.kind) {
      case "added":
        await refresh();
        return say(addedText(outcome, name));
      case "cancelled":
        return alert.show(t("cancelled"));
      case "exists":
        return alert.show(t("exists"));
      case "unsupported":
        return alert.show(t("unsupported"));
      case "failed":
        return alert.show(t("failed"));
    }
  }

  function unlockText(outcome: Exclude<PasskeyUnlock, "unlocked">) {
    return outcome === "cancelled"
      ? backupText("passkeyCancelled")
      : outcome === "not_held"
        ? backupText("passkeyNotHeld")
        : t("failed");
  }

  /** The key as this tab holds it unlocked (one unlocked just now included), or null. */
  async function unlockedPair() {
    if (key.kind === "unlocked") return key.pair;
    if (!props.publicKey) return null;
    return unlockedInTab(props.userId, props.publicKey).catch(() => null);
  }

  async function remove(item: PasskeyItem) {
    setBusy(true);
    alert.clear();
    const answer = await removePasskey(item.id, props.csrf.remove);
    setBusy(false);
    if (answer.ok || (!answer.ok && answer.error === "not_found")) {
      setItems((current) =>
        Array.isArray(current) ? current.filter((other) => other.id !== item.id) : current,
      );
      setConfirming(null);
      setBlocked(null);
      return say(t("removed", { name: item.name }));
    }
    if (answer.error === "last_key_holder") {
      setConfirming(null);
      setBlocked(item.id);
      return;
    }
    alert.show(t("failed"));
  }

  function onBackupSaved(at: string) {
    setBackupAt(at);
    setMakingBackup(false);
    say(backupText("confirmed"));
  }

  const maker = hasKey ? (
    <BackupMaker
      userId={props.userId}
      email={props.email}
      issuer={props.issuer}
      service={props.service}
      publicKey={props.publicKey ?? ""}
      userKey={key}
      passkeyHoldsKey={anyHoldsKey}
      unlockByPasskey={async () => {
        const outcome = await unlockByPasskey();
        return outcome === "unlocked" ? null : unlockText(outcome);
      }}
      csrf={props.csrf.backupSaved}
      focusFirst={arrivedUnlocked}
      onSaved={onBackupSaved}
    />
  ) : null;

  function lastHolder(item: PasskeyItem) {
    return (
      <div
        className="account-confirm passkey-last-holder stack"
        role="group"
        aria-labelledby={`last-holder-${item.id}`}
        data-testid="last-key-holder"
      >
        <h4 id={`last-holder-${item.id}`} ref={blockedRef} tabIndex={-1}>
          {backupAt ? t("confirmTitle", { name: item.name }) : t("lastHolderTitle")}
        </h4>
        {backupAt ? (
          <>
            <p>{t("lastHolderReady")}</p>
            <div className="actions">
              <button
                type="button"
                className="button-danger"
                disabled={busy}
                onClick={() => void remove(item)}
              >
                {t("confirm")}
              </button>
              <button type="button" className="button-secondary" onClick={() => setBlocked(null)}>
                {t("cancel")}
              </button>
            </div>
          </>
        ) : (
          <>
            <p>{t("lastHolderBody", { service: props.service })}</p>
            <p>{t("lastHolderBackup")}</p>
            {maker}
            <p className="hint">
              {t("lastHolderLost")} <a href="/account?key=start-over">{t("startOver")}</a>
            </p>
            <p>
              <button type="button" className="button-secondary" onClick={() => setBlocked(null)}>
                {t("cancel")}
              </button>
            </p>
          </>
        )}
      </div>
    );
  }

  return (
    <section aria-labelledby="passkeys-title" className="stack account-section passkeys">
      <h2 id="passkeys-title">{t("title")}</h2>
      <p className="muted">{t("intro")}</p>
      {status ? (
        <p
          key={status.seq}
          ref={statusRef}
          className="alert alert-success"
          role="status"
          tabIndex={-1}
        >
          {status.text}
        </p>
      ) : null}
      <FocusedAlert error={alert.error} />
      {items === "loading" ? (
        <p className="muted" role="status">
          {t("loading")}
        </p>
      ) : items === "failed" ? (
        <p className="alert alert-warn">{t("loadFailed")}</p>
      ) : list.length === 0 ? (
        <p className="muted" data-testid="passkeys-none">
          {t("none")}
        </p>
      ) : (
        <ul className="list-plain stack account-list">
          {list.map((item) => (
            <li key={item.id} className="account-item passkey-item" data-testid="passkey-item">
              <div className="account-item-head">
                <PasskeyIcon />
                <h3>{item.name}</h3>
                {item.holdsKey ? (
                  <span className="badge badge-success" data-testid="passkey-holds-key">
                    {t("holdsKey")}
                  </span>
                ) : hasKey ? (
                  <span className="badge" data-testid="passkey-sign-in-only">
                    {t("signInOnly")}
                  </span>
                ) : null}
              </div>
              <p className="muted account-meta">
                <span>{t("created", { date: day(item.createdAt) })}</span>
                <span>
                  {item.lastUsedAt ? t("lastUsed", { date: day(item.lastUsedAt) }) : t("neverUsed")}
                </span>
                <span data-testid="passkey-kind">
                  {item.synced ? t("synced") : t("deviceOnly")}
                </span>
              </p>
              {blocked === item.id ? (
                lastHolder(item)
              ) : (
                <ConfirmAction
                  id={`remove-passkey-${item.id}`}
                  open={confirming === item.id}
                  busy={busy}
                  title={t("confirmTitle", { name: item.name })}
                  body={t("confirmBody")}
                  note={item.holdsKey ? t("confirmHolds") : undefined}
                  confirmLabel={t("confirm")}
                  cancelLabel={t("cancel")}
                  actionLabel={t("remove")}
                  subject={item.name}
                  onOpen={() => {
                    // The service would refuse it: say why and offer the backup file at once.
                    if (item.removable === false && !backupAt) {
                      setConfirming(null);
                      return setBlocked(item.id);
                    }
                    setBlocked(null);
                    setConfirming(item.id);
                  }}
                  onCancel={() => setConfirming(null)}
                  onConfirm={() => void remove(item)}
                />
              )}
            </li>
          ))}
        </ul>
      )}
      {passphraseLocked ? (
        <form className="stack passkey-add" onSubmit={(event) => void add(event)} noValidate>
          <p className="hint">{t("addUnlock")}</p>
          <div className="field">
            <label htmlFor="passkey-passphrase">{t("passphrase")}</label>
            <input
              id="passkey-passphrase"
              name="passphrase"
              type="password"
              autoComplete="current-password"
              required
            />
          </div>
          <p>
            <button
              type="submit"
              className={list.length === 0 ? "button" : "button-secondary"}
              disabled={busy}
            >
              {busy ? t("adding") : t("add")}
            </button>
          </p>
        </form>
      ) : (
        <div className="stack passkey-add">
          {list.length > 0 ? <p className="hint">{t("addAnother")}</p> : null}
          {hasKey && key.kind === "missing" ? <p className="hint">{t("addNoKey")}</p> : null}
          <p>
            <button
              type="button"
              className={list.length === 0 ? "button" : "button-secondary"}
              disabled={busy || items === "loading"}
              onClick={() => void add()}
            >
              {busy ? t("adding") : t("add")}
            </button>
          </p>
        </div>
      )}
      {hasKey ? (
        <div
          className={`passkey-backup stack${backupAt ? "" : " passkey-backup-missing"}`}
          data-testid="passkey-backup"
        >
          <h3>{backupText("title")}</h3>
          {backupAt ? (
            <p>{backupText("savedOn", { date: day(backupAt) })}</p>
          ) : (
            <p>{backupText("recommended")}</p>
          )}
          {blocked !== null && !backupAt ? (
            <p className="hint">{backupText("above")}</p>
          ) : backupAt && !makingBackup ? (
            <p>
              <button type="button" className="button-link" onClick={() => setMakingBackup(true)}>
                {backupText("makeNew")}
              </button>
            </p>
          ) : (
            maker
          )}
        </div>
      ) : null}
    </section>
  );
}
