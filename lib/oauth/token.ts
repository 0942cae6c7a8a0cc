import { z } from "zod";
import { getEnv } from "../env";
import { clientIpOf } from "../http/client-ip";
import { OAuthError } from "./errors";
import {
  assertClientMayObtainKeys,
  authenticateClient,
  readClientCredentials,
  usesBasicAuth,
} from "./client-auth";
import { redeemAuthorizationCode } from "./codes";
import { assertNoDuplicates, bodyKind, optionalParam, readBodyText } from "./params";
import { oauthErrorResponse, oauthJson } from "./responses";
import type { TokenResponse } from "./schemas";

/**
 * POST /oauth/token (/docs/token, /docs/errors): a form body, or the
 * first-generation JSON body {code, codeVerifier, clientId, clientSecret}.
 * Rules run in a visible order: body → grant type → parameters → client →
 * the client's partner not suspended → code.
 */

interface TokenParams {
  grantType: string | null;
  code: string | null;
  codeVerifier: string | null;
  redirectUri: string | null;
  clientId: string | null;
  clientSecret: string | null;
}

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
  const text = await readBodyText(request);
  if (kind === "json") {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new OAuthError("invalid_request", "the JSON body could not be parsed");
    }
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
  const params = new URLSearchParams(text);
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

function assertGrantType(grantType: string | null): void {
  if (grantType === null) throw new OAuthError("invalid_request", "grant_type is required");
  if (grantType !== "authorization_code") {
    throw new OAuthError("unsupported_grant_type", "only authorization_code is supported");
  }
}

function requireParam(value: string | null, name: string): string {
  if (value === null) throw new OAuthError("invalid_request", `${name} is required`);
  return value;
}

export async function handleTokenRequest(request: Request): Promise<Response> {
  const basic = usesBasicAuth(request);
  try {
    const params = await parseTokenParams(request);
    assertGrantType(params.grantType);
    const code = requireParam(params.code, "code");
    const codeVerifier = requireParam(params.codeVerifier, "code_verifier");
    const client = await authenticateClient(readClientCredentials(request, params));
    assertClientMayObtainKeys(client);
    const issued = await redeemAuthorizationCode({
      code,
      codeVerifier,
      clientId: client.id,
      partnerId: client.partnerId,
      redirectUri: params.redirectUri,
      clientIp: clientIpOf(request),
    });
    const issuer = getEnv().issuer;
    // The token response (/docs/token), with the first-generation fields apiKey, apiBaseUrl and user.
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
    return oauthErrorResponse(error, { basic });
  }
}
