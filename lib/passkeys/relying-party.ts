import { getEnv } from "../env";
import { PASSKEY_PRF_INPUT } from "./prf";

/**
 * The WebAuthn relying party is the service itself (docs/sessions.md#passkeys):
 * its id is the issuer's host, and a ceremony counts only when the browser
 * says it ran on the issuer's own origin. A passkey made for this service can
 * therefore never be used, or asked for, by another site, a look-alike one
 * included.
 */
export interface RelyingParty {
  /** The issuer's host name: what each passkey is scoped to. */
  id: string;
  /** The issuer's origin: where every ceremony must have run. */
  origin: string;
  /** The name the system sheet shows. */
  name: string;
}

export const RELYING_PARTY_NAME = "Bank Connect";

export function relyingParty(): RelyingParty {
  const issuer = new URL(getEnv().issuer);
  return { id: issuer.hostname, origin: issuer.origin, name: RELYING_PARTY_NAME };
}

/**
 * The signature algorithms a passkey may use (COSE): EdDSA, ES256 and RS256,
 * the ones every platform authenticator offers.
 */
export const PASSKEY_ALGORITHMS = [-8, -7, -257];

/**
 * The PRF extension's input as it travels in the options' JSON: base64url.
 * The browser turns it back into bytes (lib/passkeys/prf.ts) before asking the
 * authenticator, which never sees it as text.
 */
export const PRF_INPUT_BASE64URL = Buffer.from(PASSKEY_PRF_INPUT).toString("base64url");

export const prfExtension = () => ({ prf: { eval: { first: PRF_INPUT_BASE64URL } } });
