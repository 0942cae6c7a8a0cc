import { z } from "zod";
import { getEnv } from "../env";
import { clientIpOf } from "../http/client-ip";
import { countTokenExchange } from "../metrics";
import { OAuthError, toOAuthError } from "./errors";
import {
  assertClientMayObtainKeys,
  authenticateClient,
  readClientCredentials,
} from "./client-auth";
import { grantFor, requireGrantParameters, type TokenParams } from "./grants";
import {
  assertNoDuplicates,
  bodyKind,
  optionalParam,
  readOAuthForm,
  readOAuthJson,
} from "./params";
import { oauthErrorResponse, oauthJson } from "./responses";
import type { TokenResponse } from "./schemas";

/**
 * POST /oauth/token (RFC 6749 §3.2; /docs/token): a form body, or the
 * first-generation JSON body {code, codeVerifier, clientId, clientSecret}.
 * Rules run in a visible order: body → grant type (lib/oauth/grants) →
 * the grant's parameters → client → the client's partner not suspended →
 * the grant issues the key.
 */

const firstGenerationBodySchema = z.looseObject({
  grant_type: z.string().optional(),
  code: z.string().optional(),
  codeVerifier: z.string().optional(),
  redirectUri: z.string().optional(),
  clientId: z.string().optional(),
  clientSecret: z.string().optional(),
});

const nonEmpty = (value: string | undefined) =>
  value === undefined || value === "" ? null : value;

async function parseTokenParams(request: Request): Promise<TokenParams> {
  const kind = bodyKind(request);
  if (kind === "other") {
    throw new OAuthError(
      "invalid_request",
      "content type must be application/x-www-form-urlencoded (or application/json for first-generation clients)",
    );
  }
  if (kind === "json") {
    const json = await readOAuthJson(request);
    const parsed = firstGenerationBodySchema.safeParse(json);
    if (!parsed.success)
      throw new OAuthError("invalid_request", "the JSON body has fields of the wrong type");
    const body = parsed.data;
    return {
      // First-generation clients send no grant_type: only one exists.
      grantType: nonEmpty(body.grant_type) ?? "authorization_code",
      code: nonEmpty(body.code),
      codeVerifier: nonEmpty(body.codeVerifier),
      redirectUri: nonEmpty(body.redirectUri),
      clientId: nonEmpty(body.clientId),
      clientSecret: nonEmpty(body.clientSecret),
    };
  }
  const params = await readOAuthForm(request);
  assertNoDuplicates(params);
  return {
    grantType: optionalParam(params, "grant_type"),
    code: optionalParam(params, "code"),
    codeVerifier: optionalParam(params, "code_verifier"),
    redirectUri: optionalParam(params, "redirect_uri"),
    clientId: optionalParam(params, "client_id"),
    clientSecret: optionalParam(params, "client_secret"),
  };
}

export async function handleTokenRequest(request: Request): Promise<Response> {
  try {
    const params = await parseTokenParams(request);
    const grant = grantFor(params.grantType);
    requireGrantParameters(grant, params);
    const client = await authenticateClient(readClientCredentials(request, params));
    assertClientMayObtainKeys(client);
    const issued = await grant.issue({ params, client, clientIp: clientIpOf(request) });
    const issuer = getEnv().issuer;
    countTokenExchange("ok");
    // RFC 6749 §5.1, with the first-generation fields apiKey, apiBaseUrl and user (/docs/token).
    return oauthJson({
      access_token: issued.apiKey,
      token_type: "Bearer",
      expires_in: issued.expiresInSeconds,
      scope: issued.scope,
      apiKey: issued.apiKey,
      apiBaseUrl: issuer,
      user: issued.subject,
    } satisfies z.infer<typeof TokenResponse>);
  } catch (error) {
    countTokenExchange(toOAuthError(error).code);
    return oauthErrorResponse(error);
  }
}
