import { z } from "zod";
import { GRANTS, GRANT_TYPES } from "../../oauth/grants";
import { TokenResponse, Userinfo } from "../../oauth/schemas";
import * as examples from "../openapi-examples";
import {
  anyObject,
  apiKey,
  clientAuth,
  error,
  form,
  json,
  keyRefusals,
  noBody,
  param,
  tooLarge,
  type Operation,
} from "./shared";

/** The OAuth endpoints (/docs/token): discovery, the hosted flow, token, revoke, userinfo. */

const str = z.string();
const optional = (schema: z.ZodType, description: string) => param(schema.optional(), description);

/**
 * The token request: grant_type names a row of the grant table; each
 * grant's parameters are listed, and those every grant requires are required.
 */
function tokenRequest() {
  const grants = Object.values(GRANTS);
  const wires = [...new Set(grants.flatMap((grant) => grant.parameters.map((p) => p.wire)))];
  const required = (name: string) =>
    grants.every((grant) => grant.parameters.some((p) => p.wire === name && p.required));
  return z.object({
    grant_type: z.enum(GRANT_TYPES),
    ...Object.fromEntries(wires.map((name) => [name, required(name) ? str : str.optional()])),
    client_id: str.optional(),
    client_secret: str.optional(),
  });
}

export const oauthPaths = {
  "/.well-known/oauth-authorization-server": {
    get: {
      summary: "Authorization server metadata (RFC 8414)",
      responses: { "200": json(anyObject, examples.discoveryExample) },
    },
  },
  "/oauth/authorize": {
    get: {
      summary: "Start the hosted flow (authorization code + PKCE S256, form_post)",
      requestParams: {
        query: z.object({
          response_type: param(z.literal("code"), "code"),
          client_id: param(str, "obc_… client id"),
          redirect_uri: param(str, "An exact registered redirect URI"),
          scope: optional(z.literal("accounts.read"), "accounts.read"),
          state: optional(str, "Returned in the relay"),
          code_challenge: param(str, "BASE64URL(SHA-256(verifier))"),
          code_challenge_method: param(z.literal("S256"), "S256"),
          response_mode: optional(z.literal("form_post"), "form_post"),
          login_hint: optional(str, "Prefills the email"),
          challenge: optional(z.literal("pin_code"), "Ask for the emailed code"),
          ui_locales: optional(str, "e.g. da-DK en"),
          renew_connection: optional(str, "A connection (sessionId) to renew"),
        }),
      },
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
      requestBody: form(tokenRequest(), examples.tokenRequestExample),
      responses: {
        "200": json(TokenResponse, examples.tokenResponseExample),
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
        z.object({ token: str, token_type_hint: str.optional() }),
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
      responses: { "200": json(Userinfo, examples.userinfoExample), ...keyRefusals },
    },
  },
  "/oauth/cancel": {
    post: {
      summary: "Back to the partner: the access_denied relay (browser flow, CSRF-checked)",
      requestBody: form(z.object({ csrf: str }), examples.cancelRequestExample),
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
} satisfies Record<string, Record<string, Operation>>;
