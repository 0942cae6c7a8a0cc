import { z } from "zod";
import type { RecipientKeyChallengeWire, RecipientKeyInstalledWire } from "./schemas";
import { timingSafeEqualString } from "../crypto/constant-time";
import {
  ENVELOPE_ERROR_MESSAGES,
  EnvelopeError,
  parseRawPublicKey,
  recipientKeyFingerprint,
  sealJson,
} from "../crypto/envelope";
import { keyedHash } from "../crypto/keyed-hash";
import { ownerAudit } from "../audit/context";
import type { AuditContext } from "../audit/events";
import { errorJson, privateJson } from "../http/respond";
import { authenticateOwner } from "./owner-session";
import { installRecipientKey } from "./recipient-key-install";
import { answeringOutages, temporarilyUnavailable } from "../http/outage";
import { readJsonBody } from "../http/body-limits";

/**
 * Per /docs/recipient-keys, the partner's recipient ("decryption") key, installed from the
 * partner page with the owner's interactive session and CSRF token:
 *
 * - `POST /api/partners/mine/recipient-key/challenge` `{publicKey}` seals
 *   `{"nonce":"…"}` to the key being installed (a normal §8 envelope);
 * - `PUT /api/partners/mine/recipient-key` `{publicKey, challengeAnswer}`
 *   installs the key once the partner has opened the envelope and sent the
 *   nonce back, which proves it holds the private half.
 *
 * The 1.2 spellings `/api/partner/recipient-key[/challenge]` are the same handlers.
 *
 * The challenge is stateless, so no nonce is ever stored, in plaintext or otherwise:
 *
 *   nonce = issuedAt (8 bytes, big-endian ms) ‖ first 24 bytes of
 *           HMAC(sub-key "recipient-key-challenge", partnerId|publicKey|issuedAt)
 *
 * 32 bytes, base64: the same shape as the contract's fixture nonce. Only the
 * holder of the private key can read it (it travels sealed), and nobody without
 * SECRET_KEY can forge one (a 192-bit MAC). The install recomputes the MAC from
 * the answer's own issuedAt and compares in constant time, so the answer alone
 * is enough (the wire carries just `challengeAnswer`, as in the SDKs), and it
 * is bound to this partner and this exact public key. A replayed answer, within
 * its ten minutes, can only install that same key on that same partner again
 * (a no-op, or undoing a rotation made meanwhile), and only through an owner's
 * session and CSRF token: an owner who can install any key it holds anyway.
 */

/** A challenge is answered within ten minutes or not at all. */
export const RECIPIENT_KEY_CHALLENGE_TTL_MS = 10 * 60 * 1000;
/** Another instance's clock may run slightly ahead of ours. */
const CLOCK_SKEW_MS = 60 * 1000;

const ISSUED_AT_BYTES = 8;
const MAC_BYTES = 24;
/** 32 bytes of standard base64: 43 characters and one "=". */
const NONCE_PATTERN = /^[A-Za-z0-9+/]{43}=$/;

export interface Clock {
  now?: () => Date;
}

/** Refusals, keyed by code; the status comes from this table (docs/architecture.md#typed-errors). */
const RECIPIENT_KEY_ERRORS = {
  invalid_request: 400,
  invalid_public_key: 400,
  invalid_challenge: 400,
  not_found: 404,
  key_changed: 409,
} as const satisfies Record<string, number>;

type RecipientKeyErrorCode = keyof typeof RECIPIENT_KEY_ERRORS;

export class RecipientKeyError extends Error {
  constructor(
    readonly code: RecipientKeyErrorCode,
    readonly description: string,
  ) {
    super(description);
    this.name = "RecipientKeyError";
  }
}

const refusal = (error: RecipientKeyError) =>
  errorJson(RECIPIENT_KEY_ERRORS[error.code], error.code, error.description);

/** The nonce for one partner, one public key and one moment (see the design above). */
export function challengeNonce(
  partnerId: string,
  publicKeyRawB64: string,
  issuedAtMs: number,
): string {
  const issuedAt = Buffer.alloc(ISSUED_AT_BYTES);
  issuedAt.writeBigUInt64BE(BigInt(issuedAtMs));
  const mac = Buffer.from(
    keyedHash("recipient-key-challenge", `${partnerId}|${publicKeyRawB64}|${issuedAtMs}`),
    "hex",
  ).subarray(0, MAC_BYTES);
  return Buffer.concat([issuedAt, mac]).toString("base64");
}

/** A base64 raw uncompressed P-256 point, in its canonical spelling (/docs/envelopes). */
function parsePublicKey(publicKey: string | undefined): string {
  if (publicKey === undefined || publicKey === "") {
    throw new RecipientKeyError("invalid_request", "publicKey is required");
  }
  try {
    return parseRawPublicKey(publicKey).toString("base64");
  } catch (error) {
    if (!(error instanceof EnvelopeError)) throw error;
    throw new RecipientKeyError("invalid_public_key", ENVELOPE_ERROR_MESSAGES.invalid_public_key);
  }
}

/** The answer must be a nonce this service issued for this partner and key, less than ten minutes ago. */
export function assertChallengeAnswer(
  partnerId: string,
  publicKeyRawB64: string,
  answer: string | undefined,
  now: Date,
): void {
  if (answer === undefined || !NONCE_PATTERN.test(answer)) {
    throw new RecipientKeyError(
      "invalid_challenge",
      "challengeAnswer is required: the nonce from the opened challenge envelope",
    );
  }
  const issuedAtMs = Number(Buffer.from(answer, "base64").readBigUInt64BE(0));
  // A forged issuedAt beyond 2^53 could not have been minted here: no MAC to check.
  const expected = Number.isSafeInteger(issuedAtMs)
    ? challengeNonce(partnerId, publicKeyRawB64, issuedAtMs)
    : "";
  if (!timingSafeEqualString(expected, answer)) {
    throw new RecipientKeyError(
      "invalid_challenge",
      "challengeAnswer does not answer a challenge for this partner and public key",
    );
  }
  const age = now.getTime() - issuedAtMs;
  if (age > RECIPIENT_KEY_CHALLENGE_TTL_MS || age < -CLOCK_SKEW_MS) {
    throw new RecipientKeyError(
      "invalid_challenge",
      "the challenge has expired: ask for a new one and answer it within 10 minutes",
    );
  }
}

const challengeBodySchema = z.looseObject({ publicKey: z.string().optional() });
const installBodySchema = z.looseObject({
  publicKey: z.string().optional(),
  challengeAnswer: z.string().optional(),
  // The fingerprint of the key this install replaces (null: none), as the owner saw it.
  replaces: z.string().nullable().optional(),
});

async function parseJsonBody<T>(request: Request, schema: z.ZodType<T>): Promise<T> {
  const read = await readJsonBody(request);
  if (!read.ok) {
    throw new RecipientKeyError(
      "invalid_request",
      read.problem === "too_large" ? "the body is too large" : "the body must be JSON",
    );
  }
  const parsed = schema.safeParse(read.value);
  if (!parsed.success) {
    throw new RecipientKeyError(
      "invalid_request",
      "the body must be a JSON object with string fields",
    );
  }
  return parsed.data;
}

/** Owner session, then the rule; a RecipientKeyError becomes its refusal. */
const asOwner = answeringOutages(
  async (
    request: Request,
    operation: (partnerId: string, audit: AuditContext) => Promise<Response>,
  ): Promise<Response> => {
    const owner = await authenticateOwner(request, { mutation: true });
    if (owner instanceof Response) return owner;
    try {
      return await operation(owner.partnerId, ownerAudit(request, owner));
    } catch (error) {
      if (error instanceof RecipientKeyError) return refusal(error);
      throw error;
    }
  },
  temporarilyUnavailable,
);

/** POST /api/partners/mine/recipient-key/challenge: `{publicKey}` → `{fingerprint, envelope, issuedAt, expiresAt}`. */
export function handleRecipientKeyChallenge(
  request: Request,
  { now = () => new Date() }: Clock = {},
): Promise<Response> {
  return asOwner(request, async (partnerId) => {
    const body = await parseJsonBody(request, challengeBodySchema);
    const publicKey = parsePublicKey(body.publicKey);
    const issuedAt = now();
    const nonce = challengeNonce(partnerId, publicKey, issuedAt.getTime());
    return privateJson({
      fingerprint: recipientKeyFingerprint(publicKey),
      envelope: sealJson(publicKey, { nonce }),
      issuedAt: issuedAt.toISOString(),
      expiresAt: new Date(issuedAt.getTime() + RECIPIENT_KEY_CHALLENGE_TTL_MS).toISOString(),
    } satisfies z.infer<typeof RecipientKeyChallengeWire>);
  });
}

const installedResponse = (fingerprint: string, installedAt: Date) =>
  privateJson({
    fingerprint,
    installedAt: installedAt.toISOString(),
  } satisfies z.infer<typeof RecipientKeyInstalledWire>);

/**
 * PUT /api/partners/mine/recipient-key: `{publicKey, challengeAnswer}` →
 * `{fingerprint, installedAt}`. Only the partner row changes: tenants already
 * created keep the sealing key they were created with (their data stays
 * readable by whoever could read it), and new tenants seal to this key. The
 * optional `replaces` names the fingerprint of the key the owner means to
 * replace (null: none); when another is installed by now, 409 key_changed.
 */
export function handleInstallRecipientKey(
  request: Request,
  { now = () => new Date() }: Clock = {},
): Promise<Response> {
  return asOwner(request, async (partnerId, audit) => {
    const body = await parseJsonBody(request, installBodySchema);
    const publicKey = parsePublicKey(body.publicKey);
    const at = now();
    assertChallengeAnswer(partnerId, publicKey, body.challengeAnswer, at);
    const fingerprint = recipientKeyFingerprint(publicKey);
    const installedAt = await installRecipientKey(
      partnerId,
      { publicKey, fingerprint, replaces: body.replaces },
      at,
      audit,
    );
    if (!installedAt) throw new RecipientKeyError("not_found", "no such partner");
    if (installedAt === "changed") {
      throw new RecipientKeyError(
        "key_changed",
        "the installed key is no longer the one named in replaces: look at the key installed now and confirm again",
      );
    }
    return installedResponse(fingerprint, installedAt);
  });
}
