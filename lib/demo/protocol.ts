import { createHash, randomBytes } from "node:crypto";
import { timingSafeEqualString } from "../crypto/constant-time";

/**
 * The demo partner's protocol helpers, written from the partner docs alone (/docs/flow,
 * /docs/relay, /docs/token): what any external partner would write.
 * It deliberately shares no code with the service's own lib/oauth.
 */

/** createPkce() (/docs/flow): 32 random bytes, base64url (43 chars). */
export function createCodeVerifier(): string {
  return randomBytes(32).toString("base64url");
}

/** RFC 7636 §4.2 S256: BASE64URL(SHA256(verifier)), no padding. */
export function toCodeChallenge(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

/** createState() (/docs/flow): 16 random bytes, base64url (22 chars). */
export function createState(): string {
  return randomBytes(16).toString("base64url");
}

/** Strips every trailing slash, as the published SDKs do with issuers. */
export const trimSlashes = (value: string) => value.replace(/\/+$/, "");

/**
 * Constant-time string equality, where an empty expected value (nothing was
 * issued) never matches.
 */
export function constantTimeEquals(expected: string, presented: string): boolean {
  const same = timingSafeEqualString(expected, presented);
  return same && expected.length > 0;
}

export interface AuthorizeRequest {
  issuer: string;
  clientId: string;
  redirectUri: string;
  state: string;
  codeChallenge: string;
}

/** The query in the SDK's order, always form_post and S256 (/docs/flow). */
export function buildAuthorizeUrl(request: AuthorizeRequest): string {
  const query = new URLSearchParams([
    ["response_type", "code"],
    ["client_id", request.clientId],
    ["redirect_uri", request.redirectUri],
    ["scope", "accounts.read"],
    ["state", request.state],
    ["code_challenge", request.codeChallenge],
    ["code_challenge_method", "S256"],
    ["response_mode", "form_post"],
  ]);
  return `${trimSlashes(request.issuer)}/oauth/authorize?${query}`;
}

/** Basic over the percent-encoded id and secret (/docs/token). */
export function basicAuthorization(clientId: string, clientSecret: string): string {
  const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
  return `Basic ${Buffer.from(pair, "utf8").toString("base64")}`;
}

export const RELAY_FIELDS = [
  "code",
  "state",
  "iss",
  "privateKey",
  "publicKey",
  "error",
  "error_description",
] as const;
export type RelayFields = Record<(typeof RELAY_FIELDS)[number], string>;

/** The relay's fields; a missing or repeated field counts as empty. */
export function readRelayFields(form: URLSearchParams): RelayFields {
  const fields = {} as RelayFields;
  for (const name of RELAY_FIELDS) {
    const values = form.getAll(name);
    fields[name] = values.length === 1 ? (values[0] ?? "") : "";
  }
  return fields;
}

export type RelayOutcome =
  | { kind: "success"; code: string; privateKey: string; publicKey: string }
  | { kind: "access_denied"; description: string }
  | { kind: "oauth_error"; error: string; description: string }
  | { kind: "state_mismatch" | "issuer_mismatch" | "missing_code" | "missing_private_key" };

/**
 * parseRelay (/docs/relay), newest rules, in order: state (the caller's
 * constant-time check; the demo keeps only a keyed hash of it), then iss
 * against the discovered issuer (non-empty, trailing slashes ignored,
 * constant time), only then `error`, then code, then privateKey.
 */
export function parseRelay(
  fields: RelayFields,
  expected: {
    stateMatches: (state: string) => boolean;
    issuer: string;
    /** The partner's own recipient private key, for relays with empty key fields. */
    partnerPrivateKey?: string;
  },
): RelayOutcome {
  if (!fields.state || !expected.stateMatches(fields.state)) return { kind: "state_mismatch" };
  if (!fields.iss || !constantTimeEquals(trimSlashes(expected.issuer), trimSlashes(fields.iss))) {
    return { kind: "issuer_mismatch" };
  }
  if (fields.error === "access_denied") {
    return { kind: "access_denied", description: fields.error_description };
  }
  if (fields.error) {
    return { kind: "oauth_error", error: fields.error, description: fields.error_description };
  }
  if (!fields.code) return { kind: "missing_code" };
  // Partner-key mode relays empty key fields: the data opens with the partner's own key.
  const privateKey = fields.privateKey || expected.partnerPrivateKey;
  if (!privateKey) return { kind: "missing_private_key" };
  return { kind: "success", code: fields.code, privateKey, publicKey: fields.publicKey };
}

/** Shows the first and last characters of a secret, never the whole of it. */
export function maskSecret(value: string): string {
  if (value.length <= 12) return "•".repeat(value.length);
  return `${value.slice(0, 6)}…${value.slice(-4)} (${value.length} chars)`;
}
