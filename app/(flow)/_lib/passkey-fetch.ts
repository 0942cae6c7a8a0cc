import { assertPasskey, PasskeyCeremonyError } from "@/lib/keys/passkey-ceremony";
import { keepKeyFromPasskeySignIn } from "@/lib/keys/passkey-unlock";
import { passkeySignIn, signInOptions } from "./passkey-requests";

/** How getting the key from a passkey ended. */
export type PasskeyFetch =
  /** The key is kept here, held by the passkey, and unlocked for this tab. */
  | "kept"
  /** The sheet was closed, timed out, or was replaced. */
  | "cancelled"
  /** Signed in, but this passkey does not hold the person's current key. */
  | "not_held"
  | "failed";

/**
 * A browser without the key (docs/key-model.md): a passkey sign-in brings the
 * key the service keeps wrapped for that passkey, opened here with its PRF
 * output. It is a sign-in as well (a fresh one): a passkey of someone else
 * goes on as them, to the flow's next screen, and this never resolves.
 */
export async function fetchKeyWithPasskey(
  userId: string,
  flowId: string | null,
): Promise<PasskeyFetch> {
  try {
    const options = await signInOptions();
    if (!options.ok) return "failed";
    const assertion = await assertPasskey(options.value.options);
    const answer = await passkeySignIn({
      challengeId: options.value.challengeId,
      assertion,
      flowId,
      returnUrl: "",
    });
    if (!answer.ok) return "failed";
    if (answer.value.userId !== userId) {
      window.location.assign(answer.value.next);
      return new Promise<PasskeyFetch>(() => {});
    }
    const kept = await keepKeyFromPasskeySignIn(userId, {
      credentialId: assertion.credentialId,
      prfOutput: assertion.prfOutput,
      wrappedKey: answer.value.wrappedKey,
    });
    return kept ? "kept" : "not_held";
  } catch (error) {
    if (error instanceof PasskeyCeremonyError) {
      return error.reason === "cancelled" || error.reason === "aborted" ? "cancelled" : "failed";
    }
    return "failed";
  }
}
