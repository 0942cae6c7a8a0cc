import type { UserKeyPair } from "./browser-key";
import { installPasskeyKey, type PasskeyHeldKey } from "./browser-store";
import { passkeyPrf } from "./passkey-ceremony";
import {
  parsePasskeyWrappedKey,
  PasskeyKeyError,
  unwrapKeyWithPasskey,
  type PasskeyWrappedKey,
} from "./passkey-key";
import { keepUnlockedInTab } from "./tab-unlock";

/**
 * Unlocking the key with a passkey (docs/key-model.md): the passkey's PRF
 * output opens the key wrapped to it, which then stays unlocked for this tab
 * like a key unlocked with the passphrase. Browser only.
 */

/**
 * Unlocks a key this browser keeps held by passkeys: one tap on any of them
 * (the sheet offers only those), nothing sent to the service.
 */
export async function unlockWithPasskey(
  userId: string,
  record: PasskeyHeldKey,
): Promise<UserKeyPair> {
  const { credentialId, prfOutput } = await passkeyPrf(
    record.passkeys.map((passkey) => passkey.credentialId),
  );
  const held = record.passkeys.find((passkey) => passkey.credentialId === credentialId);
  if (!held || !prfOutput) throw new PasskeyKeyError("wrong_passkey");
  const pair = await unwrapKeyWithPasskey(held.wrapped, prfOutput);
  await keepUnlockedInTab(userId, pair);
  return pair;
}

/**
 * After a passkey sign-in: the key the service keeps wrapped for that passkey
 * (`wrappedKey`, JSON text), opened with the ceremony's PRF output, is kept in
 * this browser as held by the passkey and unlocked for this tab. A new device
 * of the person gets their key this way, without a file or a passphrase.
 * Answers whether the key is now unlocked; signing in does not depend on it.
 */
export async function keepKeyFromPasskeySignIn(
  userId: string,
  signedIn: {
    credentialId: string;
    prfOutput: Uint8Array<ArrayBuffer> | null;
    wrappedKey: string | null;
  },
): Promise<boolean> {
  if (!signedIn.wrappedKey || !signedIn.prfOutput) return false;
  try {
    const wrapped = parsePasskeyWrappedKey(signedIn.wrappedKey);
    const pair = await unwrapKeyWithPasskey(wrapped, signedIn.prfOutput);
    await installPasskeyKey(userId, { credentialId: signedIn.credentialId, wrapped });
    await keepUnlockedInTab(userId, pair);
    return true;
  } catch {
    return false;
  }
}

/** Keeps a key just wrapped to a new passkey: held by it here, and unlocked for this tab. */
export async function keepNewPasskeyKey(
  userId: string,
  pair: UserKeyPair,
  held: { credentialId: string; wrapped: PasskeyWrappedKey },
): Promise<void> {
  await installPasskeyKey(userId, held);
  await keepUnlockedInTab(userId, pair);
}
