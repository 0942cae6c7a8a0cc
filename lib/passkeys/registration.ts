import {
  generateRegistrationOptions,
  verifyRegistrationResponse,
  type PublicKeyCredentialCreationOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { AuditContext } from "../audit/events";
import { recordAuditEvent } from "../audit/record";
import { db, Prisma } from "../db/client";
import { MAX_COUNTER } from "./authentication";
import { CHALLENGE_LIFETIME_SECONDS, storeChallenge, takeChallenge } from "./challenges";
import { PASSKEY_ALGORITHMS, prfExtension, relyingParty } from "./relying-party";
import { userHandleOf } from "./user-handle";
import { readWrappedKey, wrapsKey } from "./wrapped-key";

/**
 * Registering a passkey for the signed-in person (docs/sessions.md#passkeys):
 * creation options for a discoverable credential with user verification,
 * the PRF extension asked for (so the passkey can hold the key), then the
 * authenticator's answer checked against the stored challenge, this
 * service's origin and relying-party id. "none" attestation: which make of
 * authenticator it is does not matter here, only that the person verified.
 */

export type PasskeyCreationOptions = Omit<PublicKeyCredentialCreationOptionsJSON, "extensions"> & {
  extensions: ReturnType<typeof prfExtension>;
};

export async function registrationOptions(user: {
  userId: string;
  email: string;
}): Promise<{ challengeId: string; options: PasskeyCreationOptions }> {
  const rp = relyingParty();
  const existing = await db().passkey.findMany({
    where: { userId: user.userId },
    select: { credentialId: true, transports: true },
  });
  const options = await generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.email,
    userID: userHandleOf(user.userId),
    timeout: CHALLENGE_LIFETIME_SECONDS * 1000,
    attestationType: "none",
    // The authenticator refuses to make a second passkey of the account on itself.
    excludeCredentials: existing.map((passkey) => ({
      id: passkey.credentialId,
      transports: passkey.transports,
    })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
    supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
  });
  const challengeId = await storeChallenge({
    challenge: options.challenge,
    purpose: "register",
    userId: user.userId,
  });
  return { challengeId, options: { ...options, extensions: prfExtension() } };
}

export type RegistrationRefusal =
  | "challenge_expired"
  | "passkey_invalid"
  | "passkey_exists"
  | "invalid_wrapped_key"
  | "key_mismatch";

export type RegistrationResult =
  { ok: true; id: string; holdsKey: boolean } | { ok: false; refusal: RegistrationRefusal };

const TRANSPORTS = new Set(["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"]);

/** The transports the browser reported, as far as they are ones WebAuthn knows. */
function transportsOf(response: unknown): string[] {
  const listed = (response as { response?: { transports?: unknown } } | null)?.response?.transports;
  if (!Array.isArray(listed)) return [];
  return [...new Set(listed.filter((item): item is string => TRANSPORTS.has(item as string)))];
}

const MAX_NAME_LENGTH = 64;

/** The name shown on "My access": printable, at most 64 characters, "Passkey" when none. */
export function passkeyName(value: unknown): string | null {
  if (value === undefined || value === null) return "Passkey";
  if (typeof value !== "string") return null;
  const name = value.normalize("NFC").trim();
  if (/\p{C}/u.test(name) || [...name].length > MAX_NAME_LENGTH) return null;
  return name === "" ? "Passkey" : name;
}

/**
 * Checks and stores a new passkey of `user`. `wrappedKey`, when given, is
 * kept only if it names the user's registered key; a user with no key yet
 * (a first setup that makes the passkey before registering the key) may
 * give any, and registering the key then keeps only the passkeys that hold
 * it (lib/flow/key-setup.ts).
 */
export async function registerPasskey(input: {
  userId: string;
  challengeId: unknown;
  response: unknown;
  name: string;
  wrappedKey: unknown;
  audit: AuditContext;
  now?: Date;
}): Promise<RegistrationResult> {
  const now = input.now ?? new Date();
  const user = await db().user.findUniqueOrThrow({
    where: { id: input.userId },
    select: { publicKey: true },
  });
  let wrappedKey: string | null = null;
  if (input.wrappedKey !== undefined && input.wrappedKey !== null) {
    wrappedKey = readWrappedKey(input.wrappedKey);
    if (!wrappedKey) return { ok: false, refusal: "invalid_wrapped_key" };
    if (user.publicKey !== null && !wrapsKey(wrappedKey, user.publicKey)) {
      return { ok: false, refusal: "key_mismatch" };
    }
  }

  const challenge = await takeChallenge({
    id: input.challengeId,
    purpose: "register",
    userId: input.userId,
    now,
  });
  if (!challenge) return { ok: false, refusal: "challenge_expired" };
  const rp = relyingParty();
  let info;
  try {
    const verification = await verifyRegistrationResponse({
      response: input.response as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserPresence: true,
      requireUserVerification: true,
      supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
    });
    if (!verification.verified) return { ok: false, refusal: "passkey_invalid" };
    info = verification.registrationInfo;
    if (info.credential.counter > MAX_COUNTER) return { ok: false, refusal: "passkey_invalid" };
  } catch {
    // The library's messages quote what was sent; none of it is kept.
    return { ok: false, refusal: "passkey_invalid" };
  }

  const synced = info.credentialDeviceType === "multiDevice";
  // Kept only when it wraps the registered key, or the key about to be registered.
  const holdsKey = wrappedKey !== null;
  try {
    const created = await db().$transaction(async (tx) => {
      const row = await tx.passkey.create({
        data: {
          userId: input.userId,
          credentialId: info.credential.id,
          publicKey: Buffer.from(info.credential.publicKey).toString("base64url"),
          counter: info.credential.counter,
          transports: transportsOf(input.response),
          deviceType: info.credentialDeviceType,
          backedUp: info.credentialBackedUp,
          name: input.name,
          wrappedKey,
          createdAt: now,
        },
        select: { id: true },
      });
      await recordAuditEvent(tx, {
        type: "passkey.added",
        context: input.audit,
        userId: input.userId,
        details: { synced, holdsKey },
        at: now,
      });
      return row;
    });
    return { ok: true, id: created.id, holdsKey };
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      return { ok: false, refusal: "passkey_exists" };
    }
    throw error;
  }
}
