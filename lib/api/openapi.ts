import { z } from "zod";
import { getEnv } from "../env";
import { DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE } from "./paging";
import "../audit/wire";
import "../oauth/schemas";
import "../partners/schemas";
import "./schemas";

/**
 * GET /openapi.json: OpenAPI 3.1 for every public endpoint. Every JSON body
 * schema comes from the zod schemas the handlers parse with or are typed by
 * (lib/api/schemas.ts, lib/oauth/schemas.ts, lib/partners/schemas.ts); this
 * file adds the paths, parameters and form bodies.
 */

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
const json = (schema: object, description = "OK") => ({
  description,
  content: { "application/json": { schema } },
});
const error = (description: string) => json(ref("Error"), description);
const problem = (description: string) => json(ref("SyncProblem"), description);
const noBody = (description: string) => ({ description });
/** Refused before any handler runs (docs/request-bodies.md). */
const tooLarge = error(
  "invalid_request: the body is over the path's limit (also has status and reason)",
);

const apiKey = [{ apiKey: [] }, { bearer: [] }];
const ownerSession = [{ ownerSession: [] }];
const clientAuth = [{ basic: [] }, {}];
const pathId = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string" },
  description,
});
const query = (name: string, schema: object, description: string, required = false) => ({
  name,
  in: "query",
  required,
  schema,
  description,
});
const form = (properties: Record<string, object>, required: string[]) => ({
  required: true,
  content: {
    "application/x-www-form-urlencoded": { schema: { type: "object", properties, required } },
  },
});
const str = { type: "string" };
/** RFC 8288: the next page's address, when there is one. */
const linkHeader = {
  description: 'The next page: <…?limit=…&cursor=…>; rel="next"',
  schema: str,
};
const keyRefusals = {
  "401": error("Missing, revoked or expired API key"),
  "403": error("access_denied, reason partner_suspended: the partner is suspended"),
  "429": noBody("Rate limited (no body; Retry-After)"),
};

function paths() {
  return {
    "/.well-known/oauth-authorization-server": {
      get: {
        summary: "Authorization server metadata (RFC 8414)",
        responses: { "200": json({ type: "object" }) },
      },
    },
    "/oauth/authorize": {
      get: {
        summary: "Start the hosted flow (authorization code + PKCE S256, form_post)",
        parameters: [
          query("response_type", { const: "code" }, "code", true),
          query("client_id", str, "obc_… client id", true),
          query("redirect_uri", str, "An exact registered redirect URI", true),
          query("scope", { const: "accounts.read" }, "accounts.read"),
          query("state", str, "Returned in the relay"),
          query("code_challenge", str, "BASE64URL(SHA-256(verifier))", true),
          query("code_challenge_method", { const: "S256" }, "S256", true),
          query("response_mode", { const: "form_post" }, "form_post"),
          query("login_hint", str, "Prefills the email"),
          query("challenge", { const: "pin_code" }, "Ask for the emailed code"),
          query("ui_locales", str, "e.g. da-DK en"),
          query("renew_connection", str, "A connection (sessionId) to renew"),
        ],
        responses: {
          "303": noBody("To the flow's next screen"),
          "200": noBody("An error relay page form-posting to the redirect URI"),
          "400": error("Unknown client or unregistered redirect URI"),
        },
      },
    },
    "/oauth/token": {
      post: {
        summary: "Exchange the code for an API key",
        security: clientAuth,
        requestBody: form(
          {
            grant_type: { const: "authorization_code" },
            code: str,
            code_verifier: str,
            redirect_uri: str,
            client_id: str,
            client_secret: str,
          },
          ["grant_type", "code", "code_verifier"],
        ),
        responses: {
          "200": json(ref("TokenResponse")),
          "400": error(
            "invalid_request, unsupported_grant_type, invalid_grant, or unauthorized_client (the partner is suspended)",
          ),
          "401": error("invalid_client"),
          "413": tooLarge,
        },
      },
    },
    "/oauth/revoke": {
      post: {
        summary: "Revoke an API key (RFC 7009)",
        security: clientAuth,
        requestBody: form({ token: str, token_type_hint: str }, ["token"]),
        responses: {
          "200": noBody("Revoked, or nothing to revoke"),
          "401": error("invalid_client"),
          "413": tooLarge,
        },
      },
    },
    "/oauth/userinfo": {
      get: {
        summary: "Who an API key reads for",
        security: apiKey,
        responses: { "200": json(ref("Userinfo")), ...keyRefusals },
      },
    },
    "/oauth/cancel": {
      post: {
        summary: "Back to the partner: the access_denied relay (browser flow, CSRF-checked)",
        requestBody: form({ csrf: str }, ["csrf"]),
        responses: {
          "200": noBody("The access_denied relay page (HTML) form-posting to the redirect URI"),
          "400": error("invalid_request: not a form, no flow in progress, or body too large"),
          "403": error("invalid_request: a cross-origin request or a bad CSRF token"),
          "429": noBody("Rate limited (no body; Retry-After)"),
        },
      },
    },
    "/api/accounts": {
      get: {
        summary: "The user's accounts with sealed details and balances",
        description:
          "Without parameters, every account as a JSON array. With limit (and then cursor), one page: {items, next}.",
        security: apiKey,
        parameters: [
          query(
            "limit",
            { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE },
            `Page size; asks for one page (with cursor alone: ${DEFAULT_PAGE_SIZE})`,
          ),
          query("cursor", str, "The next value of the previous page"),
        ],
        responses: {
          "200": {
            ...json({ oneOf: [{ type: "array", items: ref("Account") }, ref("AccountPage")] }),
            headers: { Link: linkHeader },
          },
          "400": error("A bad, unknown or repeated parameter, named"),
          ...keyRefusals,
        },
      },
    },
    "/api/accounts/{id}/transactions": {
      get: {
        summary: "A page of an account's statement, newest first",
        security: apiKey,
        parameters: [
          pathId("id", "Account id"),
          query("from", { type: "string", format: "date" }, "Earliest booking date"),
          query("to", { type: "string", format: "date" }, "Latest booking date"),
          query(
            "limit",
            { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
            "Page size",
          ),
          query(
            "offset",
            { type: "integer", minimum: 0, maximum: MAX_OFFSET, default: 0 },
            "Rows to skip; deeper pages are read by cursor",
          ),
          query(
            "cursor",
            str,
            "The next value of the previous page: continues after it, in the same time at any depth, with its from and to; not with offset",
          ),
        ],
        responses: {
          "200": { ...json(ref("TransactionPage")), headers: { Link: linkHeader } },
          "400": error("A bad, unknown or repeated parameter, named; an offset past the deepest"),
          "404": error("No such account for this key"),
          "503": problem(
            "transient (Retry-After): the account's first history is still being stored, or its next sync will complete it",
          ),
          ...keyRefusals,
        },
      },
    },
    "/api/connections": {
      get: {
        summary: "The user's bank consents",
        security: apiKey,
        responses: { "200": json({ type: "array", items: ref("Connection") }), ...keyRefusals },
      },
    },
    "/api/accounts/{id}/sync": {
      post: {
        summary: "Fetch what is new for one account",
        security: apiKey,
        parameters: [pathId("id", "Account id")],
        requestBody: {
          required: true,
          content: { "application/json": { schema: ref("SyncRequest") } },
        },
        responses: {
          "200": json(ref("SyncResult")),
          "400": problem("invalid_request"),
          "404": problem("not_found"),
          "409": problem("reconnect_needed, consent_withdrawn, uid_outdated, psu_present_required"),
          "429": problem("rate_limited (Retry-After), or the service's own limit without a body"),
          "502": problem("bank_error"),
          "503": problem(
            "transient (Retry-After when the service was busy or out of time), or partner_app_inactive",
          ),
          "401": error("Missing, revoked or expired API key"),
          "403": keyRefusals["403"],
          "413": tooLarge,
        },
      },
    },
    "/api/sync": {
      post: {
        summary: "Fetch what is new for several accounts",
        security: apiKey,
        requestBody: {
          required: true,
          content: { "application/json": { schema: ref("BulkSyncRequest") } },
        },
        responses: {
          "200": json(ref("BulkSyncResult")),
          "400": problem("invalid_request"),
          "413": tooLarge,
          "503": problem(
            "transient (Retry-After): no sync slot free in time, or no account synced",
          ),
          ...keyRefusals,
        },
      },
    },
    ...partnerPaths(),
    "/healthz": {
      get: {
        summary: "Liveness and database reachability",
        responses: { "200": json({ type: "object" }), "503": json({ type: "object" }) },
      },
    },
    "/logos/{file}": {
      get: {
        summary: "A partner logo by content hash",
        parameters: [pathId("file", "<sha256>.png|jpg|webp")],
        responses: {
          "200": noBody("The image"),
          "304": noBody("Not modified"),
          "404": noBody("Unknown"),
        },
      },
    },
  };
}

function partnerPaths() {
  const owner = (summary: string, responses: Record<string, object>, extra: object = {}) => ({
    summary,
    security: ownerSession,
    ...extra,
    responses: {
      ...responses,
      "401": error("Sign in"),
      "403": error("Not an owner, CSRF, or an API key"),
    },
  });
  const body = (schema: object) => ({
    requestBody: { required: true, content: { "application/json": { schema } } },
  });
  const clientId = { parameters: [pathId("clientId", "obc_… client id")] };
  const install = {
    put: owner(
      "Install the decryption key (/docs/recipient-keys)",
      {
        "200": json(ref("RecipientKeyInstalled")),
        "400": error("invalid_challenge or invalid_public_key"),
      },
      body({
        type: "object",
        properties: { publicKey: str, challengeAnswer: str },
        required: ["publicKey", "challengeAnswer"],
      }),
    ),
  };
  const challenge = {
    post: owner(
      "The possession challenge: an envelope sealed to the key",
      { "200": json(ref("RecipientKeyChallenge")), "400": error("invalid_public_key") },
      body({ type: "object", properties: { publicKey: str }, required: ["publicKey"] }),
    ),
  };
  const partner = json(ref("Partner"));
  return {
    "/api/partner/me": { get: owner("The partner with its branding", { "200": partner }) },
    "/api/partner/branding": {
      put: owner(
        "Replace the branding record",
        { "200": partner, "400": error("Each violation named") },
        body(ref("BrandingRecord")),
      ),
    },
    "/api/partner/logo": {
      post: owner(
        "Upload the logo (PNG, JPEG or WebP bytes)",
        { "200": partner, "400": error("Unsupported or too large") },
        {
          requestBody: {
            required: true,
            content: {
              "application/octet-stream": {
                schema: { type: "string", contentMediaType: "application/octet-stream" },
              },
            },
          },
        },
      ),
    },
    "/api/connect/clients/{clientId}/branding": {
      get: {
        summary: "What the screens show of a client's partner (anonymous, cacheable)",
        ...clientId,
        responses: { "200": json(ref("ClientBranding")), "404": error("Unknown client") },
      },
    },
    "/api/partner/clients": {
      get: owner("The partner's Connect clients", {
        "200": json({ type: "array", items: ref("Client") }),
      }),
      post: owner(
        "Create a client; the secret is shown once",
        { "201": json(ref("NewClient")), "400": error("invalid_client_metadata") },
        body(ref("ClientMetadata")),
      ),
    },
    "/api/partner/clients/{clientId}": {
      patch: owner(
        "Rename or replace redirect URIs",
        {
          "200": json(ref("Client")),
          "400": error("invalid_client_metadata"),
          "404": error("not_found"),
        },
        { ...clientId, ...body(ref("ClientMetadata")) },
      ),
      delete: owner(
        "Delete the client; its keys stop working",
        { "204": noBody("Deleted"), "404": error("not_found") },
        clientId,
      ),
    },
    "/api/partner/clients/{clientId}/rotate-secret": {
      post: owner(
        "A new secret; the previous one works 24 hours",
        { "200": json(ref("RotatedSecret")), "404": error("not_found") },
        clientId,
      ),
    },
    "/api/partner/audit-events": {
      get: owner(
        "The partner's security log, newest first (docs/audit-log.md)",
        { "200": json(ref("AuditEventPage")), "400": error("invalid_request") },
        {
          parameters: [
            query("type", str, "One event type, e.g. client.secret_rotated"),
            query("before", str, "The previous page's `next`"),
            query("limit", { type: "integer", minimum: 1, maximum: 100 }, "Default 50"),
            query("partner", str, "The partner id, for an owner of several"),
          ],
        },
      ),
    },
    "/api/partners/mine/recipient-key": install,
    "/api/partners/mine/recipient-key/challenge": challenge,
    "/api/partner/recipient-key": install,
    "/api/partner/recipient-key/challenge": challenge,
  };
}

function components() {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    uri: (id) => `#/components/schemas/${id}`,
  });
  const cleaned = Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _schema, $id: _id, ...rest } = schema as Record<string, unknown>;
      return [id, rest];
    }),
  );
  return {
    schemas: cleaned,
    securitySchemes: {
      apiKey: { type: "apiKey", in: "header", name: "X-Api-Key" },
      bearer: { type: "http", scheme: "bearer", description: "The same ebk_ key" },
      basic: {
        type: "http",
        scheme: "basic",
        description: "client_id:client_secret, percent-encoded",
      },
      ownerSession: {
        type: "apiKey",
        in: "cookie",
        name: "bc_session",
        description: "The owner's browser session; changes also need X-CSRF-Token from this origin",
      },
    },
  };
}

export function openApiDocument() {
  return {
    openapi: "3.1.0",
    info: {
      title: "Bank Connect",
      version: "1.0.0",
      description:
        "Partner authorization (OAuth 2.0 code + PKCE) and end-to-end sealed bank data. See /docs.",
    },
    servers: [{ url: getEnv().issuer }],
    paths: paths(),
    components: components(),
  };
}
