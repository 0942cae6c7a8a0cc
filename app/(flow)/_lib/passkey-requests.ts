import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/browser";
import type { PasskeyAssertion, CreatedPasskey } from "@/lib/keys/passkey-ceremony";

/**
 * The flow screens' passkey requests (docs/sessions.md#passkeys): options
 * for a ceremony, then its answer for the service to verify. JSON, from this
 * service's own pages; what is sent never holds a PRF output (the ceremony
 * module takes it out). Browser only.
 */

export type PasskeyAnswer<T> =
  | { ok: true; value: T }
  /** `error`: the service's code (passkey_unknown, challenge_expired, …), or `failed`. */
  | { ok: false; status: number; error: string; email?: string };

async function postJson<T>(path: string, body: Record<string, unknown>): Promise<PasskeyAnswer<T>> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
      cache: "no-store",
    });
  } catch {
    return { ok: false, status: 0, error: "failed" };
  }
  const answer = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.ok) return { ok: true, value: answer as T };
  // An ended flow, an older tab, a session to re-confirm: the service names the way on.
  if (typeof answer.location === "string" && answer.location.startsWith("/")) {
    window.location.assign(answer.location);
    return new Promise<PasskeyAnswer<T>>(() => {});
  }
  return {
    ok: false,
    status: response.status,
    error: typeof answer.error === "string" ? answer.error : "failed",
    // other_account: the address of the account the passkey belongs to.
    ...(typeof answer.email === "string" ? { email: answer.email } : {}),
  };
}

export interface SignInOptions {
  challengeId: string;
  options: PublicKeyCredentialRequestOptionsJSON;
}

export const signInOptions = () => postJson<SignInOptions>("/passkeys/sign-in/options", {});

export interface PasskeySignedIn {
  /** Where the browser goes on. */
  next: string;
  userId: string;
  email: string;
  /** The key wrapped to this passkey's PRF output (JSON text), when it holds the current key. */
  wrappedKey: string | null;
}

export const passkeySignIn = (input: {
  challengeId: string;
  assertion: PasskeyAssertion;
  flowId: string | null;
  returnUrl: string;
  /** The address the page holds: a passkey of another account then signs nobody in. */
  expectEmail?: string | null;
}) =>
  postJson<PasskeySignedIn>("/passkeys/sign-in", {
    challengeId: input.challengeId,
    response: input.assertion.response,
    ...(input.flowId ? { flowId: input.flowId } : {}),
    ...(input.returnUrl ? { returnUrl: input.returnUrl } : {}),
    ...(input.expectEmail ? { expectEmail: input.expectEmail } : {}),
  });

export interface RegisterOptions {
  challengeId: string;
  options: PublicKeyCredentialCreationOptionsJSON;
}

export const registerOptions = (csrf: string) =>
  postJson<RegisterOptions>("/passkeys/register/options", { csrf });

export const registerPasskey = (input: {
  csrf: string;
  challengeId: string;
  created: CreatedPasskey;
  name: string;
  /** JSON text of the key wrapped to the passkey's PRF output; none: a passkey for sign-in only. */
  wrappedKey: string | null;
}) =>
  postJson<{ id: string }>("/passkeys/register", {
    csrf: input.csrf,
    challengeId: input.challengeId,
    response: input.created.response,
    name: input.name,
    ...(input.wrappedKey ? { wrappedKey: input.wrappedKey } : {}),
  });
