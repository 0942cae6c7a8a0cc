import { z } from "zod";
import { getEnv } from "../env";
import { GRANTS, GRANT_TYPES } from "../oauth/grants";
import { bodyLimitFor, bodyTooLargeAnswer } from "../http/body-limits";
import * as examples from "./openapi-examples";
import { DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE } from "./paging";
import { WEBHOOK_EVENT_DOCS } from "./webhook-events";
import "../analytics/wire";
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

const str = { type: "string" };
const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
/** A JSON answer with its example (every example is checked against its schema by the unit tests). */
const json = (schema: object, example: unknown, description = "OK") => ({
  description,
  content: { "application/json": { schema, example } },
});
/** An RFC 6749 error body; `code` is its `error`. */
const error = (description: string, code: string, errorDescription?: string) =>
  json(
    ref("Error"),
    errorDescription === undefined
      ? { error: code }
      : { error: code, error_description: errorDescription },
    description,
  );
/** A sync refusal: `{status, reason}`. */
const problem = (description: string, status: number, reason: string) =>
  json(ref("SyncProblem"), { status, reason }, description);
const noBody = (description: string) => ({ description });
/** An error body that also carries `reason` (and `status`) for the SDKs' sync calls. */
const errorWithReason = (withStatus: boolean) => ({
  type: "object",
  properties: {
    error: str,
    error_description: str,
    ...(withStatus ? { status: { type: "integer" } } : {}),
    reason: str,
  },
  required: ["error", "reason", ...(withStatus ? ["status"] : [])],
});
/** Refused before any handler runs (docs/request-bodies.md). */
const tooLarge = json(
  errorWithReason(true),
  JSON.parse(bodyTooLargeAnswer("/api/sync", bodyLimitFor("/api/sync")).body),
  "invalid_request: the body is over the path's limit",
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
const form = (properties: Record<string, object>, required: string[], example: object) => ({
  required: true,
  content: {
    "application/x-www-form-urlencoded": {
      schema: { type: "object", properties, required },
      example,
    },
  },
});
/**
 * The token request: grant_type names a row of the grant table; each
 * grant's parameters are listed, and those every grant requires are required.
 */
function tokenRequestBody() {
  const grants = Object.values(GRANTS);
  const properties: Record<string, object> = { grant_type: { enum: [...GRANT_TYPES] } };
  for (const grant of grants) for (const { wire } of grant.parameters) properties[wire] = str;
  const required = Object.keys(properties).filter(
    (name) =>
      name !== "grant_type" &&
      grants.every((grant) => grant.parameters.some((p) => p.wire === name && p.required)),
  );
  return form(
    { ...properties, client_id: str, client_secret: str },
    ["grant_type", ...required],
    examples.tokenRequestExample,
  );
}

/** RFC 8288: the next page's address, when there is one. */
const linkHeader = {
  description: 'The next page: <…?limit=…&cursor=…>; rel="next"',
  schema: str,
};
const jsonBody = (schema: object, example: unknown) => ({
  required: true,
  content: { "application/json": { schema, example } },
});
const keyRefusals = {
  "401": error(
    "Missing, revoked or expired API key",
    "invalid_token",
    "the API key is invalid, revoked or expired",
  ),
  "403": json(
    errorWithReason(false),
    {
      error: "access_denied",
      error_description:
        "this partner is suspended; its API keys cannot read data until it is resumed",
      reason: "partner_suspended",
    },
    "access_denied, reason partner_suspended: the partner is suspended",
  ),
  "429": noBody("Rate limited (no body; Retry-After)"),
};

/** A partner's key on an operation for a person's own key only (docs/own-data.md). */
const partnerKeyRefused = error(
  "insufficient_scope: a partner's key; only a person's own key may do this",
  "insufficient_scope",
  "the accounts.read scope does not permit this operation",
);

/** The bank list and connecting a bank: a person's own key only (docs/own-data.md). */
function ownDataPaths() {
  return {
    "/api/aspsps": {
      get: {
        summary: "The banks that can be connected (a person's own key)",
        security: apiKey,
        parameters: [
          query(
            "country",
            { type: "string", pattern: "^[A-Za-z]{2}$" },
            "ISO 3166-1 alpha-2, e.g. DK; every country when left out",
          ),
        ],
        responses: {
          "200": json({ type: "array", items: ref("Bank") }, examples.banksExample),
          "400": error(
            "A country that is not an ISO 3166-1 alpha-2 code",
            "invalid_request",
            "country must be an ISO 3166-1 alpha-2 code, e.g. DK",
          ),
          "503": problem("transient: the bank list cannot be read now", 503, "transient"),
          ...keyRefusals,
          "403": partnerKeyRefused,
        },
      },
    },
    "/api/authorizations": {
      post: {
        summary: "Start connecting a bank: its consent page (a person's own key)",
        description:
          "The bank sends the browser back to this service, which stores the connection for the key's person; it then appears in GET /api/connections.",
        security: apiKey,
        requestBody: jsonBody(ref("AuthorizationRequest"), examples.authorizationRequestExample),
        responses: {
          "200": json(ref("AuthorizationUrl"), examples.authorizationUrlExample),
          "400": problem("invalid_request", 400, "invalid_request"),
          "404": problem("not_found: no such bank in the country", 404, "not_found"),
          "409": problem("key_required: the person has not set up a key", 409, "key_required"),
          "413": tooLarge,
          "502": problem("bank_error", 502, "bank_error"),
          "503": problem("transient", 503, "transient"),
          ...keyRefusals,
          "403": partnerKeyRefused,
        },
      },
    },
  };
}

function paths() {
  return {
    "/.well-known/oauth-authorization-server": {
      get: {
        summary: "Authorization server metadata (RFC 8414)",
        responses: { "200": json({ type: "object" }, examples.discoveryExample) },
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
          "400": error(
            "Unknown client or unregistered redirect URI",
            "invalid_request",
            "redirect_uri is not registered for this client",
          ),
        },
      },
    },
    "/oauth/token": {
      post: {
        summary: "Exchange the code for an API key",
        security: clientAuth,
        requestBody: tokenRequestBody(),
        responses: {
          "200": json(ref("TokenResponse"), examples.tokenResponseExample),
          "400": error(
            "invalid_request, unsupported_grant_type, invalid_grant, or unauthorized_client (the partner is suspended)",
            "invalid_grant",
            "the code is invalid, expired or already used",
          ),
          "401": error("invalid_client", "invalid_client", "client authentication failed"),
          "413": tooLarge,
        },
      },
    },
    "/oauth/revoke": {
      post: {
        summary: "Revoke an API key (RFC 7009)",
        security: clientAuth,
        requestBody: form(
          { token: str, token_type_hint: str },
          ["token"],
          examples.revokeRequestExample,
        ),
        responses: {
          "200": noBody("Revoked, or nothing to revoke"),
          "401": error("invalid_client", "invalid_client", "client authentication failed"),
          "413": tooLarge,
        },
      },
    },
    "/oauth/userinfo": {
      get: {
        summary: "Who an API key reads for",
        security: apiKey,
        responses: { "200": json(ref("Userinfo"), examples.userinfoExample), ...keyRefusals },
      },
    },
    "/oauth/cancel": {
      post: {
        summary: "Back to the partner: the access_denied relay (browser flow, CSRF-checked)",
        requestBody: form({ csrf: str }, ["csrf"], examples.cancelRequestExample),
        responses: {
          "200": noBody("The access_denied relay page (HTML) form-posting to the redirect URI"),
          "400": error(
            "invalid_request: not a form, no flow in progress, or body too large",
            "invalid_request",
          ),
          "403": error(
            "invalid_request: a cross-origin request or a bad CSRF token",
            "invalid_request",
          ),
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
            ...json(
              { oneOf: [{ type: "array", items: ref("Account") }, ref("AccountPage")] },
              examples.accountsExample,
            ),
            headers: { Link: linkHeader },
          },
          "400": error(
            "A bad, unknown or repeated parameter, named",
            "invalid_request",
            "limit must be an integer from 1 to 500",
          ),
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
          "200": {
            ...json(ref("TransactionPage"), examples.transactionPageExample),
            headers: { Link: linkHeader },
          },
          "400": error(
            "A bad, unknown or repeated parameter, named; an offset past the deepest",
            "invalid_request",
            "limit must be an integer from 1 to 500",
          ),
          "404": error("No such account for this key", "not_found"),
          "503": problem(
            "transient (Retry-After): the account's first history is still being stored, or its next sync will complete it",
            503,
            "transient",
          ),
          ...keyRefusals,
        },
      },
    },
    "/api/connections": {
      get: {
        summary: "The user's bank consents",
        security: apiKey,
        responses: {
          "200": json({ type: "array", items: ref("Connection") }, examples.connectionsExample),
          ...keyRefusals,
        },
      },
    },
    "/api/accounts/{id}/sync": {
      post: {
        summary: "Fetch what is new for one account",
        security: apiKey,
        parameters: [pathId("id", "Account id")],
        requestBody: jsonBody(ref("SyncRequest"), examples.syncRequestExample),
        responses: {
          "200": json(ref("SyncResult"), examples.syncResultExample),
          "400": problem("invalid_request", 400, "invalid_request"),
          "404": problem("not_found", 404, "not_found"),
          "409": problem(
            "reconnect_needed, consent_withdrawn, uid_outdated, psu_present_required, psu_headers_missing",
            409,
            "uid_outdated",
          ),
          "429": problem(
            "rate_limited (Retry-After), or the service's own limit without a body",
            429,
            "rate_limited",
          ),
          "502": problem("bank_error", 502, "bank_error"),
          "503": problem(
            "transient (Retry-After when the service was busy or out of time), or partner_app_inactive",
            503,
            "transient",
          ),
          "401": keyRefusals["401"],
          "403": keyRefusals["403"],
          "413": tooLarge,
        },
      },
    },
    "/api/sync": {
      post: {
        summary: "Fetch what is new for several accounts",
        security: apiKey,
        requestBody: jsonBody(ref("BulkSyncRequest"), examples.bulkSyncRequestExample),
        responses: {
          "200": json(ref("BulkSyncResult"), examples.bulkSyncResultExample),
          "400": problem("invalid_request", 400, "invalid_request"),
          "413": tooLarge,
          "503": problem(
            "transient (Retry-After): no sync slot free in time, or no account synced",
            503,
            "transient",
          ),
          ...keyRefusals,
        },
      },
    },
    ...ownDataPaths(),
    ...partnerPaths(),
    "/healthz": {
      get: {
        summary: "Liveness and database reachability",
        description:
          "With Enable Banking, `warnings` lists setup problems of its application (bank_callback_not_registered, bank_application_inactive); they leave the answer 200.",
        responses: {
          "200": json({ type: "object" }, examples.healthExample),
          "503": json({ type: "object" }, examples.unhealthyExample, "The database is unreachable"),
        },
      },
    },
    "/livez": {
      get: {
        summary: "Liveness: the process answers",
        description:
          "Asks nothing of the database or the bank aggregator, so their outage does not restart the service. For an orchestrator's liveness probe and the container's health check.",
        responses: { "200": json({ type: "object" }, examples.livezExample) },
      },
    },
    "/readyz": {
      get: {
        summary: "Readiness: database reachable, migrations applied, bank aggregator configured",
        description:
          "`checks` gives each check's `status` (ok, failed, skipped) and, when it is not ok, a `reason`. For an orchestrator's readiness probe and a load balancer's health check.",
        responses: {
          "200": json({ type: "object" }, examples.readyExample),
          "503": json({ type: "object" }, examples.notReadyExample, "A check failed"),
        },
      },
    },
    "/logos/{file}": {
      get: {
        summary: "A partner logo by content hash",
        parameters: [pathId("file", "<sha256>.png|jpg|webp")],
        responses: {
          "200": {
            description: "The image",
            content: {
              "image/*": {
                schema: { type: "string", contentMediaType: "image/*" },
                example: examples.imageBytesExample,
              },
            },
          },
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
      "401": error("Sign in", "login_required", "sign in as the partner's owner"),
      "403": error(
        "Not an owner, CSRF, or an API key",
        "csrf",
        "the request did not come from this service's dashboard",
      ),
    },
  });
  const body = (schema: object, example: unknown) => ({ requestBody: jsonBody(schema, example) });
  const clientId = { parameters: [pathId("clientId", "obc_… client id")] };
  const install = {
    put: owner(
      "Install the decryption key (docs: /docs/recipient-keys)",
      {
        "200": json(ref("RecipientKeyInstalled"), examples.installedExample),
        "400": error("invalid_challenge or invalid_public_key", "invalid_challenge"),
      },
      body(
        {
          type: "object",
          properties: { publicKey: str, challengeAnswer: str },
          required: ["publicKey", "challengeAnswer"],
        },
        examples.installRequestExample,
      ),
    ),
  };
  const challenge = {
    post: owner(
      "The possession challenge: an envelope sealed to the key",
      {
        "200": json(ref("RecipientKeyChallenge"), examples.challengeExample),
        "400": error("invalid_public_key", "invalid_public_key"),
      },
      body(
        { type: "object", properties: { publicKey: str }, required: ["publicKey"] },
        examples.challengeRequestExample,
      ),
    ),
  };
  const partner = json(ref("Partner"), examples.partnerExample);
  const signUpAnswer = {
    type: "object",
    properties: {
      partner: {
        type: "object",
        properties: { id: str, name: str },
        required: ["id", "name"],
      },
      created: { type: "boolean" },
    },
    required: ["partner", "created"],
  };
  const errorWithViolations = {
    type: "object",
    properties: {
      error: str,
      error_description: str,
      violations: {
        type: "array",
        items: {
          type: "object",
          properties: { field: str, code: str, message: str },
          required: ["field", "code", "message"],
        },
      },
    },
    required: ["error", "violations"],
  };
  return {
    "/api/partners": {
      post: owner(
        "Sign up a partner: the signed-in person becomes its owner (when the operator allows it)",
        {
          "201": json(signUpAnswer, examples.signUpExample, "Created"),
          "200": json(
            signUpAnswer,
            { ...examples.signUpExample, created: false },
            "Already owns one",
          ),
          "400": error("The name, named", "invalid_request", "name must be a string"),
          "409": json(
            errorWithViolations,
            {
              error: "name_taken",
              error_description: "name is already used by another partner: choose another name",
              violations: [
                {
                  field: "name",
                  code: "taken",
                  message: "name is already used by another partner: choose another name",
                },
              ],
            },
            "The name is another partner's",
          ),
        },
        body(
          { type: "object", properties: { name: str }, required: ["name"] },
          examples.signUpRequestExample,
        ),
      ),
    },
    "/api/partner/me": { get: owner("The partner with its branding", { "200": partner }) },
    "/api/partner/branding": {
      put: owner(
        "Replace the branding record",
        {
          "200": partner,
          "400": error(
            "Each violation named",
            "invalid_branding",
            "accentColor must be a colour like #1f5eff",
          ),
        },
        body(ref("BrandingRecord"), examples.brandingRequestExample),
      ),
    },
    "/api/partner/logo": {
      post: owner(
        "Upload the logo (PNG, JPEG or WebP bytes)",
        {
          "200": partner,
          "400": error(
            "Unsupported or too large",
            "unsupported_type",
            "the logo must be a PNG, JPEG or WebP image",
          ),
        },
        {
          requestBody: {
            required: true,
            content: {
              "application/octet-stream": {
                schema: { type: "string", contentMediaType: "application/octet-stream" },
                example: examples.imageBytesExample,
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
        responses: {
          "200": json(ref("ClientBranding"), examples.clientBrandingExample),
          "404": error("Unknown client", "not_found"),
        },
      },
    },
    "/api/partner/clients": {
      get: owner("The partner's Connect clients", {
        "200": json({ type: "array", items: ref("Client") }, [examples.clientExample]),
      }),
      post: owner(
        "Create a client; the secret is shown once",
        {
          "201": json(ref("NewClient"), examples.newClientExample),
          "400": error("invalid_client_metadata", "invalid_client_metadata"),
        },
        body(ref("ClientMetadata"), examples.clientMetadataExample),
      ),
    },
    "/api/partner/clients/{clientId}": {
      patch: owner(
        "Rename or replace redirect URIs",
        {
          "200": json(ref("Client"), examples.clientExample),
          "400": error("invalid_client_metadata", "invalid_client_metadata"),
          "404": error("not_found", "not_found"),
        },
        { ...clientId, ...body(ref("ClientMetadata"), examples.clientMetadataExample) },
      ),
      delete: owner(
        "Delete the client; its keys stop working",
        { "204": noBody("Deleted"), "404": error("not_found", "not_found") },
        clientId,
      ),
    },
    "/api/partner/clients/{clientId}/rotate-secret": {
      post: owner(
        "A new secret; the previous one works 24 hours",
        {
          "200": json(ref("RotatedSecret"), examples.rotatedSecretExample),
          "404": error("not_found", "not_found"),
        },
        clientId,
      ),
    },
    "/api/partner/audit-events": {
      get: owner(
        "The partner's security log, newest first (docs/audit-log.md)",
        {
          "200": json(ref("AuditEventPage"), examples.auditEventPageExample),
          "400": error("invalid_request", "invalid_request"),
        },
        {
          parameters: [
            query("type", str, "One event type, e.g. client.secret_rotated"),
            query(
              "before",
              str,
              "The previous page's `next`, unchanged: an opaque cursor that works only for the partner it was given for",
            ),
            query("limit", { type: "integer", minimum: 1, maximum: 100 }, "Default 50"),
            query("partner", str, "The partner id, for an owner of several"),
          ],
        },
      ),
    },
    "/api/partner/analytics": {
      get: owner(
        "Flow analytics: the funnel, cancellations, failures, time to approve (docs/analytics.md)",
        {
          "200": json(ref("FlowAnalytics"), examples.analyticsExample),
          "400": error(
            "A bad period or client id",
            "invalid_request",
            "period must be one of 24h, 7d, 30d",
          ),
          "404": error("Not a client of this partner", "not_found"),
        },
        {
          parameters: [
            query("period", { type: "string", enum: ["24h", "7d", "30d"] }, "Default 7d"),
            query("client", str, "One of the partner's client ids; all clients when absent"),
            query("partner", str, "The partner id, for an owner of several"),
          ],
        },
      ),
    },
    "/api/partner/recipient-key": install,
    "/api/partner/recipient-key/challenge": challenge,
    // The same handlers under their first paths, kept for clients written against them.
    "/api/partners/mine/recipient-key": aliasOf("/api/partner/recipient-key", install),
    "/api/partners/mine/recipient-key/challenge": aliasOf(
      "/api/partner/recipient-key/challenge",
      challenge,
    ),
  };
}

/**
 * A path served by the same handler as `path`: its operations are marked
 * `x-alias-of` (the reference shows them once, under `path`, naming the alias).
 */
function aliasOf<Item extends Record<string, object>>(path: string, item: Item): Item {
  return Object.fromEntries(
    Object.entries(item).map(([method, operation]) => [
      method,
      {
        ...operation,
        "x-alias-of": path,
        description: `An alias of ${method.toUpperCase()} ${path}: the same operation, with the same rules and answers.`,
      },
    ]),
  ) as Item;
}

/** A Standard Webhooks header every delivery carries. */
const webhookHeader = (name: string, description: string) => ({
  name,
  in: "header",
  required: true,
  schema: str,
  description,
});

/**
 * The events the service POSTs to a partner's webhook endpoints
 * (docs/events.md), one per type: the payload's schema from
 * ./webhook-events.ts, the signature headers, and what the endpoint answers.
 */
function webhooks() {
  return Object.fromEntries(
    WEBHOOK_EVENT_DOCS.map((event) => [
      event.type,
      {
        post: {
          operationId: `webhook_${event.type.replace(/\W/g, "_")}`,
          summary: event.summary,
          description: `${event.description} Verify the signature before trusting the body; retries keep webhook-id (/docs/events).`,
          parameters: [
            webhookHeader(
              "webhook-id",
              "The event's id (msg_…); every retry keeps it: the idempotency key",
            ),
            webhookHeader("webhook-timestamp", "When this attempt was signed, Unix seconds"),
            webhookHeader(
              "webhook-signature",
              "v1,<base64 HMAC-SHA256 of {webhook-id}.{webhook-timestamp}.{body}>; space-separated, two during a secret rotation",
            ),
          ],
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: ref(event.schemaId), example: event.example },
            },
          },
          responses: {
            "2XX": noBody("Received: no retry"),
            default: noBody(
              "Anything else, a redirect or no answer within 10 s: retried on schedule",
            ),
          },
        },
      },
    ]),
  );
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
    webhooks: webhooks(),
    components: components(),
  };
}
