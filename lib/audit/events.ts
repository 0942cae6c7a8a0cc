import { z } from "zod";

/**
 * The security events the service records (docs/audit-log.md), as data: each
 * type names the strict schema of its `subject` and `details`, and whether a
 * partner's owners may read it. Every string an event may carry has a fixed,
 * non-secret shape (ids, a key's 12-character shown prefix, a fingerprint,
 * field names) or is something the partner itself typed and reads anyway
 * (client names, redirect URIs, an owner's email). Strict objects refuse any
 * other field, so a careless call site cannot slip a secret, key, code or PIN
 * into the log: the write fails instead.
 */

/** `ebk_` and the next 8 characters: what lib/keys/api-keys.ts shows of a key, never more. */
const keyPrefix = z.string().regex(/^ebk_[A-Za-z0-9_-]{8}$/);
const fingerprint = z.string().regex(/^[0-9a-f]{16}$/);
/** Partner-typed text, bounded like the inputs it comes from. */
const label = z.string().max(200);
const redirectUris = z.array(z.string().max(2048)).max(10);

const signInMethod = z.enum(["pin", "link"]);
const none = z.null();

/** Why a sign-in was refused: the screens' own outcomes. */
export const SIGN_IN_REFUSALS = [
  "wrong_pin",
  "locked",
  "expired",
  "used",
  "unknown",
  "other_browser",
  // The address's PIN guess budget closed its codes, or its client address
  // made too many wrong guesses (docs/sign-in-limits.md).
  "pin_closed",
  "too_many_failures",
] as const;

/**
 * Why a passkey sign-in was refused: a credential the service does not know,
 * a challenge that was used, expired or never made, a signature counter that
 * went back (a cloned authenticator, or a replayed response), or a response
 * that fails a check: made for another origin or relying party, without user
 * verification, badly signed, or malformed.
 */
export const PASSKEY_REFUSALS = [
  "unknown",
  "challenge_expired",
  "counter_replayed",
  "wrong_origin",
  "wrong_rp_id",
  "no_user_verification",
  "bad_signature",
  "malformed",
] as const;

export const API_KEY_REVOCATIONS = [
  "revocation_request",
  "code_replay",
  "key_start_over",
  // The user ended the partner's access, or deleted everything, on /account.
  "user_ended_access",
  "user_deleted",
  // The person revoked one of their own personal keys on /account (docs/own-data.md).
  "user_revoked_own_key",
] as const;

export const AUDIT_EVENTS = {
  "sign_in.succeeded": {
    partnerVisible: false,
    subject: none,
    details: z.strictObject({ method: signInMethod, inFlow: z.boolean() }),
  },
  "sign_in.failed": {
    partnerVisible: false,
    subject: none,
    details: z.strictObject({
      method: signInMethod,
      reason: z.enum(SIGN_IN_REFUSALS),
      attemptsLeft: z.int().min(0).max(5).optional(),
    }),
  },
  /** The wrong PIN that used up the last attempt: only a new code can follow. */
  "sign_in.locked": {
    partnerVisible: false,
    subject: none,
    details: z.strictObject({ method: z.literal("pin") }),
  },
  /** A passkey was registered to the user (docs/sessions.md#passkeys). */
  "passkey.added": {
    partnerVisible: false,
    subject: none,
    details: z.strictObject({ synced: z.boolean(), holdsKey: z.boolean() }),
  },
  /** The user removed one of their passkeys on /account. */
  "passkey.removed": {
    partnerVisible: false,
    subject: none,
    details: z.strictObject({ synced: z.boolean(), heldKey: z.boolean() }),
  },
  /** A person signed in with a passkey; `keyServed`: its wrapped key was handed to the browser. */
  "passkey.used": {
    partnerVisible: false,
    subject: none,
    details: z.strictObject({ inFlow: z.boolean(), synced: z.boolean(), keyServed: z.boolean() }),
  },
  /** A passkey sign-in was refused. */
  "passkey.refused": {
    partnerVisible: false,
    subject: none,
    details: z.strictObject({ reason: z.enum(PASSKEY_REFUSALS) }),
  },
  "api_key.issued": {
    partnerVisible: true,
    subject: keyPrefix,
    details: z.strictObject({ scope: z.string().max(200) }),
  },
  "api_key.revoked": {
    partnerVisible: true,
    subject: keyPrefix,
    details: z.strictObject({ reason: z.enum(API_KEY_REVOCATIONS) }),
  },
  /** A user replaced a lost key (docs/key-model.md): what was sealed to the old one is deleted. */
  "user.key_replaced": {
    partnerVisible: false,
    subject: none,
    details: z.strictObject({
      tenants: z.int().min(0),
      connections: z.int().min(0),
      apiKeysRevoked: z.int().min(0),
    }),
  },
  "client.created": {
    partnerVisible: true,
    subject: none,
    details: z.strictObject({ name: label, redirectUris }),
  },
  "client.deleted": {
    partnerVisible: true,
    subject: none,
    details: z.strictObject({ name: label }),
  },
  "client.secret_rotated": {
    partnerVisible: true,
    subject: none,
    details: z.strictObject({ previousSecretExpiresAt: z.iso.datetime() }),
  },
  "client.redirect_uris_changed": {
    partnerVisible: true,
    subject: none,
    details: z.strictObject({ added: redirectUris, removed: redirectUris }),
  },
  "partner.created": {
    partnerVisible: true,
    subject: none,
    details: z.strictObject({ name: label, ownerEmail: z.email() }),
  },
  "partner.branding_changed": {
    partnerVisible: true,
    subject: none,
    // The names of the branding fields that changed (lib/partners/branding-record.ts).
    details: z.strictObject({ fields: z.array(z.string().regex(/^[a-zA-Z]{1,40}$/)).min(1) }),
  },
  "partner.recipient_key_installed": {
    partnerVisible: true,
    subject: none,
    details: z.strictObject({ fingerprint, previousFingerprint: fingerprint.nullable() }),
  },
  "partner.suspended": { partnerVisible: true, subject: none, details: z.strictObject({}) },
  "partner.resumed": { partnerVisible: true, subject: none, details: z.strictObject({}) },
  "partner.owner_added": {
    partnerVisible: true,
    subject: none,
    details: z.strictObject({ email: z.email() }),
  },
} as const satisfies Record<
  string,
  { partnerVisible: boolean; subject: z.ZodType<string | null>; details: z.ZodType<object> }
>;

export type AuditEventType = keyof typeof AUDIT_EVENTS;

export const AUDIT_EVENT_TYPES = Object.keys(AUDIT_EVENTS) as AuditEventType[];

/** The types a partner's owners see on the dashboard (sign-ins are never among them). */
export const PARTNER_VISIBLE_TYPES = AUDIT_EVENT_TYPES.filter(
  (type) => AUDIT_EVENTS[type].partnerVisible,
);

export const isAuditEventType = (value: string): value is AuditEventType =>
  Object.hasOwn(AUDIT_EVENTS, value);

export type AuditDetails<T extends AuditEventType> = z.infer<(typeof AUDIT_EVENTS)[T]["details"]>;
export type AuditSubject<T extends AuditEventType> = z.infer<(typeof AUDIT_EVENTS)[T]["subject"]>;

export type AuditActor =
  | { kind: "user"; id: string }
  | { kind: "client"; id: string }
  | { kind: "operator"; id: string }
  | { kind: "system" }
  | { kind: "anonymous" };

/** Who acted and from where: what every audited operation is handed by its caller. */
export interface AuditContext {
  actor: AuditActor;
  /** The client address (lib/http/client-ip.ts); null outside HTTP. */
  clientIp: string | null;
}

/** Changes made by the service itself (seed, fixtures): still recorded, as the system's. */
export const SYSTEM_AUDIT: AuditContext = { actor: { kind: "system" }, clientIp: null };
