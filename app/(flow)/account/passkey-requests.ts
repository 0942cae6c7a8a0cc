import type { UserKeyPair } from "@/lib/keys/browser-key";
import { createPasskey, PasskeyCeremonyError } from "@/lib/keys/passkey-ceremony";
import { serializePasskeyWrappedKey, wrapKeyWithPasskey } from "@/lib/keys/passkey-key";
import { keepNewPasskeyKey } from "@/lib/keys/passkey-unlock";
import { registerOptions, registerPasskey } from "../_lib/passkey-requests";
import { postAction, sendAction, type ActionAnswer } from "./account-requests";

/**
 * The passkey panel's requests (docs/account.md#passkeys): the list, adding a
 * passkey (which holds the key when the key is unlocked in this tab and the
 * authenticator gives a PRF output), removing one, and recording a saved
 * backup file. The PRF output never leaves this page: only the key wrapped
 * with it is sent.
 */

export interface PasskeyItem {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** Synced across the person's devices (a multi-device credential). */
  synced: boolean;
  /** Wraps the person's current key. */
  holdsKey: boolean;
  /** False for the last passkey holding the key while no backup was saved. */
  removable?: boolean;
}

export async function loadPasskeys(): Promise<PasskeyItem[] | null> {
  try {
    const response = await fetch("/account/passkeys", {
      headers: { Accept: "application/json" },
      cache: "no-store",
    });
    if (!response.ok) return null;
    const body: unknown = await response.json();
    return Array.isArray(body) ? (body as PasskeyItem[]) : null;
  } catch {
    return null;
  }
}

export type AddOutcome =
  | { kind: "added"; holdsKey: boolean; prf: boolean }
  /** The system sheet was closed, or timed out. */
  | { kind: "cancelled" }
  /** This authenticator already holds a passkey of the account. */
  | { kind: "exists" }
  | { kind: "unsupported" }
  | { kind: "failed" };

/**
 * Adds a passkey for the signed-in person: the service's creation options,
 * the system sheet, then the registration. With `pair` (the key unlocked in
 * this tab) and a PRF output, the passkey holds the key too, and this browser
 * keeps the key as held by it.
 */
export async function addPasskey(input: {
  userId: string;
  csrf: string;
  name: string;
  pair: UserKeyPair | null;
}): Promise<AddOutcome> {
  const started = await registerOptions(input.csrf);
  if (!started.ok) return { kind: "failed" };
  let created;
  try {
    created = await createPasskey(started.value.options);
  } catch (error) {
    const reason = error instanceof PasskeyCeremonyError ? error.reason : "failed";
    return { kind: reason === "aborted" ? "cancelled" : reason };
  }
  const wrapped =
    input.pair && created.prfOutput
      ? await wrapKeyWithPasskey(input.pair, created.prfOutput)
      : null;
  const registered = await registerPasskey({
    csrf: input.csrf,
    challengeId: started.value.challengeId,
    created,
    name: input.name,
    wrappedKey: wrapped ? serializePasskeyWrappedKey(wrapped) : null,
  });
  if (!registered.ok) {
    return { kind: registered.error === "passkey_exists" ? "exists" : "failed" };
  }
  if (input.pair && wrapped) {
    // This browser now opens the key with a tap on the new passkey too.
    await keepNewPasskeyKey(input.userId, input.pair, {
      credentialId: created.credentialId,
      wrapped,
    }).catch(() => undefined);
  }
  return { kind: "added", holdsKey: wrapped !== null, prf: created.prfOutput !== null };
}

/** DELETE /account/passkeys/{id}; a stale sign-in is sent to sign in again first. */
export function removePasskey(id: string, csrf: string): Promise<ActionAnswer> {
  return sendAction("DELETE", `/account/passkeys/${encodeURIComponent(id)}`, { csrf });
}

export function confirmBackupSaved(csrf: string, publicKey: string): Promise<ActionAnswer> {
  return postAction("/account/key/backup-saved", { csrf, publicKey });
}
