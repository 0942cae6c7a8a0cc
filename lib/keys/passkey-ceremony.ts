import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  platformAuthenticatorIsAvailable,
  startAuthentication,
  startRegistration,
  WebAuthnAbortService,
  WebAuthnError,
  type AuthenticationExtensionsClientOutputs,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/browser";
import { PASSKEY_PRF_INPUT } from "../passkeys/prf";

/**
 * The browser's side of a passkey ceremony (docs/key-model.md), with
 * @simplewebauthn/browser: every ceremony asks for the PRF extension with the
 * service's fixed input, and the PRF output is taken out of the answer here.
 * It stays in the page (it opens the key); what is sent to the service never
 * holds it. Browser only.
 */

/** Why a ceremony did not give a credential. */
export type PasskeyFailure =
  /** The person closed the system sheet, or it timed out: stay and say so. */
  | "cancelled"
  /** Another ceremony or the page replaced this one: nothing to say. */
  | "aborted"
  /** Creating: this authenticator already holds a passkey of this account. */
  | "exists"
  /** This browser cannot do it. */
  | "unsupported"
  | "failed";

export class PasskeyCeremonyError extends Error {
  constructor(
    readonly reason: PasskeyFailure,
    options?: { cause?: unknown },
  ) {
    super(`passkey ceremony: ${reason}`, options);
    this.name = "PasskeyCeremonyError";
  }
}

/** WebAuthn is there at all (a passkey on a phone nearby can still be used). */
export const passkeysSupported = (): boolean =>
  typeof window !== "undefined" && browserSupportsWebAuthn();

/**
 * Whether to offer making a passkey here: this device has an authenticator
 * that verifies the person (Face ID, Touch ID, Windows Hello, a phone's screen
 * lock, or a password manager that keeps passkeys). Elsewhere creating one
 * would only open a sheet asking for a security key or another phone.
 */
export async function canCreatePasskeyHere(): Promise<boolean> {
  if (!passkeysSupported()) return false;
  return platformAuthenticatorIsAvailable().catch(() => false);
}

/** Whether passkeys can be offered in the email field's autofill (conditional UI). */
export async function canAutofillPasskeys(): Promise<boolean> {
  if (!passkeysSupported()) return false;
  return browserSupportsWebAuthnAutofill().catch(() => false);
}

/** Ends a pending ceremony (a conditional request before the mail form is sent). */
export function cancelPasskeyCeremony(): void {
  WebAuthnAbortService.cancelCeremony();
}

const prfInput = () => ({ prf: { eval: { first: new Uint8Array(PASSKEY_PRF_INPUT).buffer } } });

function prfOutputOf(
  results: AuthenticationExtensionsClientOutputs,
): Uint8Array<ArrayBuffer> | null {
  const first = results.prf?.results?.first;
  if (!first) return null;
  const bytes =
    first instanceof ArrayBuffer
      ? new Uint8Array(first)
      : new Uint8Array(first.buffer, first.byteOffset, first.byteLength);
  return bytes.byteLength === 32 ? new Uint8Array(bytes) : null;
}

/** The extension results as the service may see them: whether PRF is enabled, never its output. */
function withoutPrfOutput(results: AuthenticationExtensionsClientOutputs) {
  const { prf, ...rest } = results;
  return prf?.enabled === undefined ? rest : { ...rest, prf: { enabled: prf.enabled } };
}

function toCeremonyError(error: unknown): PasskeyCeremonyError {
  if (error instanceof PasskeyCeremonyError) return error;
  const code = error instanceof WebAuthnError ? error.code : null;
  const name =
    error instanceof WebAuthnError && error.cause instanceof Error
      ? error.cause.name
      : error instanceof Error
        ? error.name
        : "";
  if (code === "ERROR_CEREMONY_ABORTED" || name === "AbortError") {
    return new PasskeyCeremonyError("aborted", { cause: error });
  }
  if (code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED" || name === "InvalidStateError") {
    return new PasskeyCeremonyError("exists", { cause: error });
  }
  if (name === "NotAllowedError") return new PasskeyCeremonyError("cancelled", { cause: error });
  if (name === "NotSupportedError" || !passkeysSupported()) {
    return new PasskeyCeremonyError("unsupported", { cause: error });
  }
  return new PasskeyCeremonyError("failed", { cause: error });
}

export interface CreatedPasskey {
  /** What the service verifies: no PRF output in it. */
  response: RegistrationResponseJSON;
  /** base64url. */
  credentialId: string;
  /** The passkey's PRF output, or null when the authenticator has none (sign-in only). */
  prfOutput: Uint8Array<ArrayBuffer> | null;
}

/**
 * Creates a passkey with the service's creation options. Some authenticators
 * only say PRF is enabled at creation: one assertion right after (one more
 * tap) gets the output.
 */
export async function createPasskey(
  optionsJSON: PublicKeyCredentialCreationOptionsJSON,
): Promise<CreatedPasskey> {
  let created: RegistrationResponseJSON;
  try {
    created = await startRegistration({
      optionsJSON: { ...optionsJSON, extensions: { ...optionsJSON.extensions, ...prfInput() } },
    });
  } catch (error) {
    throw toCeremonyError(error);
  }
  const results = created.clientExtensionResults;
  let prfOutput = prfOutputOf(results);
  if (!prfOutput && results.prf?.enabled) {
    prfOutput = (await passkeyPrf([created.id], optionsJSON.rp.id ?? window.location.hostname))
      .prfOutput;
  }
  return {
    response: { ...created, clientExtensionResults: withoutPrfOutput(results) },
    credentialId: created.id,
    prfOutput,
  };
}

export interface PasskeyAssertion {
  /** What the service verifies: no PRF output in it. */
  response: AuthenticationResponseJSON;
  /** base64url. */
  credentialId: string;
  prfOutput: Uint8Array<ArrayBuffer> | null;
}

/**
 * Signs in with a passkey, with the service's request options: from the
 * sheet, or (`autofill`) from the email field's suggestions, where it waits
 * until the person picks a passkey or the request is cancelled.
 */
export async function assertPasskey(
  optionsJSON: PublicKeyCredentialRequestOptionsJSON,
  { autofill = false }: { autofill?: boolean } = {},
): Promise<PasskeyAssertion> {
  let asserted: AuthenticationResponseJSON;
  try {
    asserted = await startAuthentication({
      optionsJSON: { ...optionsJSON, extensions: { ...optionsJSON.extensions, ...prfInput() } },
      useBrowserAutofill: autofill,
    });
  } catch (error) {
    throw toCeremonyError(error);
  }
  return {
    response: {
      ...asserted,
      clientExtensionResults: withoutPrfOutput(asserted.clientExtensionResults),
    },
    credentialId: asserted.id,
    prfOutput: prfOutputOf(asserted.clientExtensionResults),
  };
}

const toBase64Url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/**
 * Asks one of `credentialIds` for its PRF output, and nothing else: the
 * assertion is not sent anywhere (its challenge is random and local), the
 * output only opens the key this browser or the service keeps wrapped for
 * it. Used to unlock the key, and after a creation that gave no output.
 */
export async function passkeyPrf(
  credentialIds: string[],
  rpId: string = window.location.hostname,
): Promise<{ credentialId: string; prfOutput: Uint8Array<ArrayBuffer> | null }> {
  const asserted = await assertPasskey({
    challenge: toBase64Url(crypto.getRandomValues(new Uint8Array(32))),
    rpId,
    userVerification: "required",
    allowCredentials: credentialIds.map((id) => ({ id, type: "public-key" })),
    timeout: 120_000,
  });
  return { credentialId: asserted.credentialId, prfOutput: asserted.prfOutput };
}
