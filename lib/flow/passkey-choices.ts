import { isFreshSignIn } from "../auth/sessions";
import { db } from "../db/client";
import { parsePasskeyWrappedKey } from "../keys/passkey-key";

/**
 * What the user-key approval offers about passkeys (docs/key-model.md):
 * getting the key from a passkey that holds it (a browser without the key
 * signs in with that passkey), and, right after a sign-in of a person with a
 * key and no passkey yet (a mail sign-in: a passkey sign-in means they have
 * one), adding one.
 */
export async function passkeyChoices(user: {
  userId: string;
  publicKey: string | null;
  signedInAt: Date;
}): Promise<{ holdKey: boolean; offer: boolean }> {
  const passkeys = await db().passkey.findMany({
    where: { userId: user.userId },
    select: { wrappedKey: true },
  });
  const holds = (wrappedKey: string | null) => {
    if (wrappedKey === null || user.publicKey === null) return false;
    try {
      return parsePasskeyWrappedKey(wrappedKey).publicKey === user.publicKey;
    } catch {
      return false;
    }
  };
  return {
    holdKey: passkeys.some((passkey) => holds(passkey.wrappedKey)),
    offer: user.publicKey !== null && passkeys.length === 0 && isFreshSignIn(user),
  };
}
