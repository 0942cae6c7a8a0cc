"use client";

import { useEffect, useState } from "react";
import { WrongPassphraseError, type UserKeyPair } from "@/lib/keys/browser-key";
import { loadInstalledKey, unlockInstalledKey, type InstalledKey } from "@/lib/keys/browser-store";
import { keepUnlockedInTab, unlockedInTab } from "@/lib/keys/tab-unlock";

export type UserKey =
  | { kind: "loading" }
  | { kind: "missing" }
  | { kind: "locked"; installed: InstalledKey }
  | { kind: "unlocked"; pair: UserKeyPair };

/**
 * The person's key as this browser holds it (docs/key-model.md): unlocked
 * if this tab unlocked it in the last minutes, otherwise locked behind the
 * passphrase, or not here at all. Unlocking keeps it for this tab as the
 * flow does; the private key never leaves the page.
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

  return { key, unlock };
}
