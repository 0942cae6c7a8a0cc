"use client";

import { useEffect, useState } from "react";
import { WrongPassphraseError, type UserKeyPair } from "@/lib/keys/browser-key";
import {
  backupOf,
  isPasskeyHeld,
  loadInstalledKey,
  unlockInstalledKey,
  type InstalledKey,
} from "@/lib/keys/browser-store";
import { PasskeyCeremonyError } from "@/lib/keys/passkey-ceremony";
import { PasskeyKeyError } from "@/lib/keys/passkey-key";
import { unlockWithPasskey } from "@/lib/keys/passkey-unlock";
import { keepUnlockedInTab, unlockedInTab } from "@/lib/keys/tab-unlock";
import { fetchKeyWithPasskey } from "../_lib/passkey-fetch";

export type UserKey =
  | { kind: "loading" }
  | { kind: "missing" }
  | { kind: "locked"; installed: InstalledKey }
  | { kind: "unlocked"; pair: UserKeyPair };

/** Whether a passphrase opens the key this browser keeps (a passkey-only key has none). */
export const passphraseOpens = (installed: InstalledKey): boolean =>
  !isPasskeyHeld(installed) || backupOf(installed) !== null;

/** Says, across the reload after a passkey sign-in, how unlocking went (read once). */
const UNLOCK_NOTICE = "bank-connect:account-unlock";

export function takeUnlockNotice(): "unlocked" | "not_held" | null {
  const notice = sessionStorage.getItem(UNLOCK_NOTICE);
  sessionStorage.removeItem(UNLOCK_NOTICE);
  return notice === "unlocked" || notice === "not_held" ? notice : null;
}

/** How unlocking with a passkey ended. */
export type PasskeyUnlock =
  | "unlocked"
  /** The sheet was closed or timed out. */
  | "cancelled"
  /** The passkey used does not hold the key (or holds an older one). */
  | "not_held"
  | "failed";

/**
 * The person's key as this browser holds it (docs/key-model.md): unlocked
 * if this tab unlocked it in the last minutes, otherwise locked behind the
 * passphrase or a passkey, or not here at all. Unlocking keeps it for this
 * tab as the flow does; the private key never leaves the page.
 */
export function useUserKey(userId: string, registeredPublicKey: string | null) {
  const [key, setKey] = useState<UserKey>({ kind: "loading" });

  useEffect(() => {
    let cancelled = false;
    async function find(): Promise<UserKey> {
      if (!registeredPublicKey) return { kind: "missing" };
      const pair = await unlockedInTab(userId, registeredPublicKey).catch(() => null);
      if (pair) return { kind: "unlocked", pair };
      const installed = await loadInstalledKey(userId);
      return installed?.publicKey === registeredPublicKey
        ? { kind: "locked", installed }
        : { kind: "missing" };
    }
    find().then(
      (found) => !cancelled && setKey(found),
      () => !cancelled && setKey({ kind: "missing" }),
    );
    return () => {
      cancelled = true;
    };
  }, [userId, registeredPublicKey]);

  /** Unlocks the stored key; false for a wrong passphrase. */
  async function unlock(passphrase: string): Promise<boolean> {
    if (key.kind !== "locked") return false;
    try {
      const pair = await unlockInstalledKey(key.installed, passphrase);
      await keepUnlockedInTab(userId, pair);
      setKey({ kind: "unlocked", pair });
      return true;
    } catch (error) {
      if (error instanceof WrongPassphraseError) return false;
      throw error;
    }
  }

  /**
   * Unlocks with a passkey: a key this browser keeps held by passkeys opens
   * with a tap (nothing is sent); a key this browser does not hold comes from
   * a passkey sign-in, whose answer carries the key the service keeps wrapped
   * for that passkey (a passkey of someone else signs in as them and leaves
   * this page).
   */
  async function unlockByPasskey(): Promise<PasskeyUnlock> {
    try {
      if (key.kind === "locked" && isPasskeyHeld(key.installed)) {
        const pair = await unlockWithPasskey(userId, key.installed);
        setKey({ kind: "unlocked", pair });
        return "unlocked";
      }
      if (key.kind !== "missing" || !registeredPublicKey) return "failed";
      const fetched = await fetchKeyWithPasskey(userId, null);
      if (fetched === "cancelled" || fetched === "failed") return fetched;
      // The sign-in made a new session, which the page's action tokens were not made for: the
      // page is rendered again, the key (when the passkey held it) unlocked for this tab.
      sessionStorage.setItem(UNLOCK_NOTICE, fetched === "kept" ? "unlocked" : "not_held");
      window.location.reload();
      return new Promise<PasskeyUnlock>(() => {});
    } catch (error) {
      if (error instanceof PasskeyCeremonyError) {
        return error.reason === "cancelled" || error.reason === "aborted" ? "cancelled" : "failed";
      }
      return error instanceof PasskeyKeyError ? "not_held" : "failed";
    }
  }

  return { key, unlock, unlockByPasskey };
}
