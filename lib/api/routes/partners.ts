import { z } from "zod";
import { FlowAnalyticsWire } from "../../analytics/wire";
import { PartnerAuditPageWire } from "../../audit/wire";
import {
  BrandingRecordWire,
  ClientBrandingWire,
  ClientMetadataBody,
  ClientWire,
  NewClientMetadataBody,
  NewClientWire,
  PartnerWire,
  RecipientKeyChallengeWire,
  RecipientKeyInstalledWire,
  RotatedSecretWire,
  SignUpBody,
} from "../../partners/schemas";
import * as examples from "../openapi-examples";
import {
  bytes,
  error,
  json,
  jsonBody,
  noBody,
  openObject,
  openObjects,
  ownerSession,
  param,
  pathId,
  type Operation,
  type Response,
} from "./shared";

/** The partner's own operations, signed in as its owner in the dashboard (/docs/partners). */

const str = z.string();

/** An operation of the partner's owner: the owner's session, and its refusals. */
export const owner = (
  summary: string,
  responses: Record<string, Response>,
  extra: Omit<Operation, "summary" | "responses"> = {},
): Operation => ({
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

export const body = (schema: z.ZodType, example: unknown) => ({
  requestBody: jsonBody(schema, example),
});
const clientId = { requestParams: { path: z.object({ clientId: pathId("obc_… client id") }) } };
const optional = (schema: z.ZodType, description: string) => param(schema.optional(), description);

// Sign-up ignores keys other than `name`.
openObjects.add(SignUpBody);

const install = {
  put: owner(
    "Install the decryption key (docs: /docs/recipient-keys)",
    {
      "200": json(RecipientKeyInstalledWire, examples.installedExample),
      "400": error("invalid_challenge or invalid_public_key", "invalid_challenge"),
    },
    body(openObject({ publicKey: str, challengeAnswer: str }), examples.installRequestExample),
  ),
};
const challenge = {
  post: owner(
    "The possession challenge: an envelope sealed to the key",
    {
      "200": json(RecipientKeyChallengeWire, examples.challengeExample),
      "400": error("invalid_public_key", "invalid_public_key"),
    },
    body(openObject({ publicKey: str }), examples.challengeRequestExample),
  ),
};
const partner = json(PartnerWire, examples.partnerExample);
const signUpAnswer = openObject({
  partner: openObject({ id: str, name: str }),
  created: z.boolean(),
});
const errorWithViolations = openObject({
  error: str,
  error_description: str.optional(),
  violations: z.array(openObject({ field: str, code: str, message: str })),
});

/**
 * A path served by the same handler as `path`: its operations are marked
 * `x-alias-of` (the reference shows them once, under `path`, naming the alias).
 */
function aliasOf(path: string, item: Record<string, Operation>): Record<string, Operation> {
  return Object.fromEntries(
    Object.entries(item).map(([method, operation]) => [
      method,
      {
        ...operation,
        "x-alias-of": path,
        description: `An alias of ${method.toUpperCase()} ${path}: the same operation, with the same rules and answers.`,
      },
    ]),
  );
}

export const partnerPaths = {
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
      body(SignUpBody, examples.signUpRequestExample),
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
      body(BrandingRecordWire, examples.brandingRequestExample),
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
              schema: bytes("application/octet-stream"),
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
        "200": json(ClientBrandingWire, examples.clientBrandingExample),
        "404": error("Unknown client", "not_found"),
      },
    },
  },
  "/api/partner/clients": {
    get: owner("The partner's Connect clients", {
      "200": json(z.array(ClientWire), [examples.clientExample]),
    }),
    post: owner(
      "Create a client; the secret is shown once",
      {
        "201": json(NewClientWire, examples.newClientExample),
        "400": error("invalid_client_metadata", "invalid_client_metadata"),
      },
      body(NewClientMetadataBody, examples.clientMetadataExample),
    ),
  },
  "/api/partner/clients/{clientId}": {
    patch: owner(
      "Rename or replace redirect URIs",
      {
        "200": json(ClientWire, examples.clientExample),
        "400": error("invalid_client_metadata", "invalid_client_metadata"),
        "404": error("not_found", "not_found"),
      },
      { ...clientId, ...body(ClientMetadataBody, examples.clientMetadataExample) },
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
        "200": json(RotatedSecretWire, examples.rotatedSecretExample),
        "404": error("not_found", "not_found"),
      },
      clientId,
    ),
  },
  "/api/partner/audit-events": {
    get: owner(
      "The partner's security log, newest first (docs/audit-log.md)",
      {
        "200": json(PartnerAuditPageWire, examples.auditEventPageExample),
        "400": error("invalid_request", "invalid_request"),
      },
      {
        requestParams: {
          query: z.object({
            type: optional(str, "One event type, e.g. client.secret_rotated"),
            before: optional(
              str,
              "The previous page's `next`, unchanged: an opaque cursor that works only for the partner it was given for",
            ),
            limit: optional(z.number().int().min(1).max(100), "Default 50"),
            partner: optional(str, "The partner id, for an owner of several"),
          }),
        },
      },
    ),
  },
  "/api/partner/analytics": {
    get: owner(
      "Flow analytics: the funnel, cancellations, failures, time to approve (docs/analytics.md)",
      {
        "200": json(FlowAnalyticsWire, examples.analyticsExample),
        "400": error(
          "A bad period or client id",
          "invalid_request",
          "period must be one of 24h, 7d, 30d",
        ),
        "404": error("Not a client of this partner", "not_found"),
      },
      {
        requestParams: {
          query: z.object({
            period: optional(z.enum(["24h", "7d", "30d"]), "Default 7d"),
            client: optional(str, "One of the partner's client ids; all clients when absent"),
            partner: optional(str, "The partner id, for an owner of several"),
          }),
        },
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
} satisfies Record<string, Record<string, Operation>>;
