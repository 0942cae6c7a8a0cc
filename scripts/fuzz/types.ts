/**
 * The fuzz run's vocabulary: the endpoints it covers, the requests it sends
 * and the answers it judges.
 */

/** How an endpoint's refusals are documented (/docs, /openapi.json, /docs/errors). */
export type Family =
  | "oauth-token" // RFC 6749 §5.2 JSON {error, error_description}
  | "oauth-revoke" // 200 with no body, or RFC 6749 §5.2 JSON
  | "oauth-bearer" // userinfo: RFC 6750 JSON with WWW-Authenticate: Bearer
  | "authorize" // 400 JSON before client and redirect URI are verified, then the relay page
  | "cancel" // JSON {error, error_description}, the access_denied relay page, or 303 to /error
  | "data" // /docs/data: JSON, RFC 6750 401/403, Error 400/404
  | "sync" // /docs/sync: problem JSON {status, reason}
  | "partner" // owner session API: JSON {error, error_description?}
  | "public-json" // discovery, openapi.json, healthz, client branding
  | "logo" // image, 304, or 404 text
  | "flow-form" // hosted screens' form posts: a redirect, a relay page or an empty 403
  | "flow-json" // /setup/key, /setup/start-over, /consent/approve, /banks/progress/status: JSON, a redirect or the relay page
  | "passkey-json" // passkey sign-in and a person's passkeys: JSON, or {error} with a 4xx (a 429 with Retry-After)
  | "demo" // the demo partner app: a redirect or a short text refusal
  | "page"; // HTML pages and unknown paths

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

export const ALL_METHODS: readonly Method[] = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
];

export interface Endpoint {
  /** The route as written in app/ (with [param] segments), or a label for unknown paths. */
  name: string;
  family: Family;
  /** The methods the route exports; Next answers 405 to the others (pages take GET and HEAD). */
  methods: readonly Method[];
}

export interface FuzzRequest {
  endpoint: Endpoint;
  /** The malformation this request carries (or "valid" for an unmutated baseline). */
  kind: string;
  method: string;
  /** Sent byte for byte (latin-1), so it may hold bad percent-encoding or non-UTF-8 bytes. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** The run's seed and this request's index, to reproduce it. */
  seed: number;
  index: number;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** The credentials and ids the fixtures set up, so mutations start from valid requests. */
export interface FuzzContext {
  origin: string;
  data: {
    key: string;
    revokedKey: string;
    expiredKey: string;
    accountId: string;
    uid: string;
    otherTenantAccountId: string;
    connectionId: string;
  };
  oauth: {
    clientId: string;
    clientSecret: string;
    redirectUri: string;
    codes: { code: string; verifier: string }[];
    /** A second client whose keys the revoke requests may revoke. */
    revokeClient: { clientId: string; clientSecret: string; keys: string[] };
    suspendedClientId: string;
  };
  owner: {
    cookie: string;
    csrf: string;
    partnerId: string;
    clientIds: string[];
    otherPartnerId: string;
    otherClientId: string;
    /** An owner of two partners, who must choose one with ?partner=. */
    multiCookie: string;
    multiCsrf: string;
  };
  /** The owner's webhook endpoint and one of its deliveries; the other owner's, to reach for. */
  webhooks: {
    endpointId: string;
    deliveryId: string;
    otherEndpointId: string;
    otherDeliveryId: string;
  };
  flows: { cookie: string; csrf: Record<string, string> }[];
  demo: { cookie: string; csrf: string };
  /** A signed-in person with a key and passkeys, and the tokens of their passkey actions. */
  passkeys: {
    cookie: string;
    addCsrf: string;
    removeCsrf: string;
    backupCsrf: string;
    key: string;
    ids: string[];
  };
  logoFile: string;
}
