import { createHmac, hkdfSync } from "node:crypto";
import { z } from "zod";
import { timingSafeEqualString } from "../../crypto/constant-time";
import { getEnv } from "../../env";
import { PSU_TYPES } from "../types";

/**
 * The sandbox aggregator is stateless (docs/architecture.md#upstream-aggregators): authorization ids,
 * codes, session ids, account uids and continuation keys are tokens that carry
 * what the sandbox needs, signed with HMAC-SHA256 so that a tampered one is
 * refused.
 *
 *   <prefix>.<base64url(JSON claims)>.<base64url(HMAC-SHA256(prefix "." body))>
 *
 * Each kind has its own prefix and its own HKDF sub-key of SECRET_KEY (label
 * `sandbox-token:<kind>`), so a token of one kind never verifies as another.
 * The claims are not secret (the sandbox's bank data is fiction), only
 * authentic. Expiry is the caller's rule: it needs a clock.
 */

const claimsSchemas = {
  authorization: z.object({
    nonce: z.string().min(1),
    bank: z.string().min(1),
    psuType: z.enum(PSU_TYPES),
    /** Epoch milliseconds of the consent's end. */
    validUntil: z.number().int(),
    redirectUrl: z.string().min(1),
    state: z.string(),
    language: z.string(),
    issuedAt: z.number().int(),
    expiresAt: z.number().int(),
  }),
  code: z.object({
    nonce: z.string().min(1),
    bank: z.string().min(1),
    psuType: z.enum(PSU_TYPES),
    validUntil: z.number().int(),
    issuedAt: z.number().int(),
    expiresAt: z.number().int(),
  }),
  session: z.object({
    nonce: z.string().min(1),
    bank: z.string().min(1),
    psuType: z.enum(PSU_TYPES),
    validUntil: z.number().int(),
    issuedAt: z.number().int(),
  }),
  account: z.object({
    nonce: z.string().min(1),
    bank: z.string().min(1),
    psuType: z.enum(PSU_TYPES),
    validUntil: z.number().int(),
    index: z.number().int().min(0),
    /** Epoch milliseconds of the consent (scenario banks start failing a minute later). */
    connectedAt: z.number().int().optional(),
  }),
  page: z.object({
    /** A digest of the account uid: a key from one account is refused on another. */
    account: z.string().min(1),
    dateFrom: z.string(),
    /** The window's last day, pinned on the first page so that paging is stable. */
    dateTo: z.string(),
    /** The day the next page starts from, and how many of its entries were already given. */
    cursorDay: z.string(),
    skip: z.number().int().min(0),
  }),
} as const;

export type SandboxTokenKind = keyof typeof claimsSchemas;
export type SandboxClaims<K extends SandboxTokenKind> = z.infer<(typeof claimsSchemas)[K]>;

export const SANDBOX_TOKEN_PREFIXES = {
  authorization: "sbxauth",
  code: "sbxcode",
  session: "sbxsess",
  account: "sbxacct",
  page: "sbxpage",
} as const satisfies Record<SandboxTokenKind, string>;

const HKDF_SALT = "bank-connect/sandbox-token/v1";
const subKeys = new Map<string, Buffer>();

/** The HMAC key of one token kind, derived from SECRET_KEY (cached per secret and kind). */
function tokenKey(kind: SandboxTokenKind, secretKey: string): Buffer {
  const cacheKey = `${kind}\u0000${secretKey}`;
  let key = subKeys.get(cacheKey);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secretKey, HKDF_SALT, `sandbox-token:${kind}`, 32));
    subKeys.set(cacheKey, key);
  }
  return key;
}

function signature(kind: SandboxTokenKind, signed: string, secretKey: string): Buffer {
  return createHmac("sha256", tokenKey(kind, secretKey)).update(signed, "utf8").digest();
}

/** Deterministic: the same claims always give the same token. */
export function signSandboxToken<K extends SandboxTokenKind>(
  kind: K,
  claims: SandboxClaims<K>,
  secretKey: string = getEnv().secretKey,
): string {
  const body = Buffer.from(JSON.stringify(claims), "utf8").toString("base64url");
  const signed = `${SANDBOX_TOKEN_PREFIXES[kind]}.${body}`;
  return `${signed}.${signature(kind, signed, secretKey).toString("base64url")}`;
}

/** The claims of an authentic token of this kind, or null (tampered, other kind, malformed). */
export function findSandboxToken<K extends SandboxTokenKind>(
  kind: K,
  token: string,
  secretKey: string = getEnv().secretKey,
): SandboxClaims<K> | null {
  const [prefix, body, mac, ...rest] = token.split(".");
  if (prefix !== SANDBOX_TOKEN_PREFIXES[kind] || !body || !mac || rest.length > 0) return null;
  const expected = signature(kind, `${prefix}.${body}`, secretKey);
  const given = Buffer.from(mac, "base64url");
  // Lenient base64url decoding would accept other spellings of the same MAC.
  if (given.toString("base64url") !== mac) return null;
  if (!timingSafeEqualString(mac, expected.toString("base64url"))) return null;
  try {
    const parsed = claimsSchemas[kind].safeParse(
      JSON.parse(Buffer.from(body, "base64url").toString("utf8")),
    );
    return parsed.success ? (parsed.data as SandboxClaims<K>) : null;
  } catch {
    return null;
  }
}
