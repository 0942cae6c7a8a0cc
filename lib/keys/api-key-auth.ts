import { OAuthError } from "../oauth/errors";
import { bearerErrorResponse, oauthErrorResponse } from "../oauth/responses";
import { findActiveApiKey, readApiKeyCredential, type ApiKeyPrincipal } from "./api-keys";

/**
 * API-key authentication for a request (SPEC 5.3, 5.4): the principal, or the
 * 401 response for a missing, unknown, revoked or expired key.
 */
export async function authenticateApiKeyRequest(
  request: Request,
): Promise<ApiKeyPrincipal | Response> {
  const credential = readApiKeyCredential(request);
  if (credential.kind === "key") {
    const principal = await findActiveApiKey(credential.key);
    if (principal) return principal;
  }
  const description =
    credential.kind === "none"
      ? "an API key is required"
      : "the API key is invalid, revoked or expired";
  return bearerErrorResponse(new OAuthError("invalid_token", description));
}

/**
 * The same for the OAuth-shaped endpoints: a database outage is answered
 * 503 temporarily_unavailable instead of being thrown.
 */
export async function authenticateApiKeyOrRefuse(
  request: Request,
): Promise<ApiKeyPrincipal | Response> {
  try {
    return await authenticateApiKeyRequest(request);
  } catch (error) {
    return oauthErrorResponse(error);
  }
}

/**
 * SPEC 5.5: a key's scope permits exactly the five data operations; every
 * other API path answers 403 insufficient_scope to a valid key.
 */
export async function refuseOutsideScope(request: Request): Promise<Response> {
  const principal = await authenticateApiKeyOrRefuse(request);
  if (principal instanceof Response) return principal;
  return bearerErrorResponse(
    new OAuthError("insufficient_scope", "the accounts.read scope does not permit this operation"),
  );
}
