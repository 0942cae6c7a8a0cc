import { createHash } from "node:crypto";
import {
  generateAuthenticationOptions,
  verifyAuthenticationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { decodeClientDataJSON, parseAuthenticatorData } from "@simplewebauthn/server/helpers";
import type { PASSKEY_REFUSALS } from "../audit/events";
import { recordAuditEvent, recordRefusal } from "../audit/record";
import { db } from "../db/client";
import { log } from "../log";
import { CHALLENGE_LIFETIME_SECONDS, storeChallenge, takeChallenge } from "./challenges";
import { prfExtension, relyingParty, type RelyingParty } from "./relying-party";
import { userHandleBase64Url } from "./user-handle";
import { wrapsKey } from "./wrapped-key";

/**
 * Signing in with a passkey (docs/sessions.md#passkeys). The options name no
 * credential (the passkey is discoverable: the person picks it, no address
 * typed) and ask for user verification and the PRF extension. The answer
 * counts only when all of these hold:
 * - its challenge is one the service made for a sign-in, unused and under
 *   five minutes old (it is deleted as it is checked);
 * - the credential is one the service registered;
 * - the browser ran the ceremony on the service's own origin, for its
 *   relying-party id, and the authenticator verified the person (UV);
 * - the signature verifies with the credential's stored public key;
 * - the signature counter grew, unless it is 0 on both sides (synced
 *   passkeys keep no counter): a counter going back means a cloned
 *   authenticator or a replayed answer.
 * Then the counter, the backup flags and the time of use are recorded.
 */

export type PasskeyRequestOptions = Omit<PublicKeyCredentialRequestOptionsJSON, "extensions"> & {
  extensions: ReturnType<typeof prfExtension>;
};

export async function signInOptions(): Promise<{
  challengeId: string;
  options: PasskeyRequestOptions;
}> {
  const rp = relyingParty();
  const options = await generateAuthenticationOptions({
    rpID: rp.id,
    allowCredentials: [],
    userVerification: "required",
    timeout: CHALLENGE_LIFETIME_SECONDS * 1000,
  });
  const challengeId = await storeChallenge({
    challenge: options.challenge,
    purpose: "authenticate",
    userId: null,
  });
  return { challengeId, options: { ...options, extensions: prfExtension() } };
}

/** The answer's codes (docs/sessions.md#passkeys). */
export type SignInError =
  "passkey_unknown" | "passkey_invalid" | "challenge_expired" | "counter_replayed";

type RefusalReason = (typeof PASSKEY_REFUSALS)[number];

const ERROR_OF: Record<RefusalReason, SignInError> = {
  unknown: "passkey_unknown",
  challenge_expired: "challenge_expired",
  counter_replayed: "counter_replayed",
  wrong_origin: "passkey_invalid",
  wrong_rp_id: "passkey_invalid",
  no_user_verification: "passkey_invalid",
  bad_signature: "passkey_invalid",
  malformed: "passkey_invalid",
};

export type SignInResult =
  | {
      ok: true;
      user: { id: string; email: string; publicKey: string | null };
      /** The key this passkey holds, when it wraps the user's registered key. */
      wrappedKey: string | null;
    }
  | { ok: false; error: SignInError };

export const MAX_COUNTER = 2 ** 31 - 1;

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * Which check a response the library refused failed, for the audit log.
 * Read from the response itself; nothing of it is kept but the reason.
 */
function diagnose(response: AuthenticationResponseJSON, challenge: string, rp: RelyingParty) {
  try {
    const clientData = decodeClientDataJSON(response.response.clientDataJSON);
    if (clientData.type !== "webauthn.get") return "malformed";
    // Signed over another challenge: an answer to an earlier sign-in, sent again.
    if (clientData.challenge !== challenge) return "challenge_expired";
    if (clientData.origin !== rp.origin || clientData.crossOrigin || clientData.topOrigin) {
      return "wrong_origin";
    }
    const authData = parseAuthenticatorData(
      new Uint8Array(Buffer.from(response.response.authenticatorData, "base64url")),
    );
    if (!Buffer.from(authData.rpIdHash).equals(sha256(rp.id))) return "wrong_rp_id";
    if (!authData.flags.up || !authData.flags.uv) return "no_user_verification";
    return "bad_signature";
  } catch {
    return "malformed";
  }
}

function isAssertion(value: unknown): value is AuthenticationResponseJSON {
  const candidate = value as Partial<AuthenticationResponseJSON> | null;
  return (
    typeof candidate === "object" &&
    candidate !== null &&
    typeof candidate.id === "string" &&
    candidate.id.length > 0 &&
    candidate.id.length <= 1400 &&
    typeof candidate.response === "object" &&
    candidate.response !== null &&
    typeof candidate.response.clientDataJSON === "string" &&
    typeof candidate.response.authenticatorData === "string" &&
    typeof candidate.response.signature === "string"
  );
}

/** Verifies a passkey sign-in; records its use (or its refusal) in the audit log. */
export async function verifySignIn(input: {
  challengeId: unknown;
  response: unknown;
  inFlow: boolean;
  clientIp: string | null;
  now?: Date;
}): Promise<SignInResult> {
  const now = input.now ?? new Date();
  let userId: string | null = null;
  const refuse = async (reason: RefusalReason): Promise<SignInResult> => {
    // The reason only: no credential id, key, challenge or part of the answer.
    log.info("passkey.sign_in_refused", { reason });
    await recordRefusal({
      type: "passkey.refused",
      context: { actor: { kind: "anonymous" }, clientIp: input.clientIp },
      userId,
      details: { reason },
      at: now,
    });
    return { ok: false, error: ERROR_OF[reason] };
  };

  const challenge = await takeChallenge({
    id: input.challengeId,
    purpose: "authenticate",
    userId: null,
    now,
  });
  if (!challenge) return refuse("challenge_expired");
  if (!isAssertion(input.response)) return refuse("malformed");
  const response = input.response;
  const passkey = await db().passkey.findUnique({
    where: { credentialId: response.id },
    include: { user: { select: { id: true, email: true, publicKey: true } } },
  });
  if (!passkey) return refuse("unknown");
  userId = passkey.userId;
  // A user handle, when the authenticator gives one, must be this passkey's person.
  const handle = response.response.userHandle;
  if (handle !== undefined && handle !== userHandleBase64Url(passkey.userId)) {
    return refuse("malformed");
  }

  const rp = relyingParty();
  let info;
  try {
    const verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      // The counter is checked below, after the signature, so that only a
      // genuine answer of this passkey is ever called a replay.
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, "base64url")),
        counter: 0,
        transports: passkey.transports,
      },
    });
    if (!verification.verified) return refuse("bad_signature");
    info = verification.authenticationInfo;
  } catch {
    return refuse(diagnose(response, challenge, rp));
  }

  const counter = info.newCounter;
  // Stored as a 32-bit signed integer; no real authenticator counts this far.
  if (counter > MAX_COUNTER) return refuse("malformed");
  if ((counter > 0 || passkey.counter > 0) && counter <= passkey.counter) {
    return refuse("counter_replayed");
  }
  const keyServed = wrapsKey(passkey.wrappedKey, passkey.user.publicKey);
  const recorded = await db().$transaction(async (tx) => {
    // Conditional on the counter read: of two answers racing, one counts.
    const updated = await tx.passkey.updateMany({
      where: { id: passkey.id, counter: passkey.counter },
      data: {
        counter,
        lastUsedAt: now,
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
      },
    });
    if (updated.count !== 1) return false;
    await recordAuditEvent(tx, {
      type: "passkey.used",
      context: { actor: { kind: "user", id: passkey.userId }, clientIp: input.clientIp },
      userId: passkey.userId,
      details: {
        inFlow: input.inFlow,
        synced: info.credentialDeviceType === "multiDevice",
        keyServed,
      },
      at: now,
    });
    return true;
  });
  if (!recorded) return refuse("counter_replayed");
  return {
    ok: true,
    user: passkey.user,
    wrappedKey: keyServed ? passkey.wrappedKey : null,
  };
}
