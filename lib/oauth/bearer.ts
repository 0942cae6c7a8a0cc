import { OAuthError, toErrorBody } from "./errors";
import { bearerErrorResponse, oauthErrorResponse, oauthJson } from "./responses";
import {
  findActiveApiKey,
  readApiKeyCredential,
  type ApiKeyCredential,
  type ApiKeyPrincipal,
  type KeyCheck,
} from "../keys/api-keys";
import { noteKeyUsed } from "../keys/last-use";

export const PARTNER_SUSPENDED_READS =
  "this partner is suspended; its API keys cannot read data until it is resumed";

/**
 * A live key of a suspended partner (docs/partner-suspension.md): 403, not
 * 401, because the key is not dead and works again once the partner is
 * resumed; a partner that dropped its keys on a 401 would lose them for good.
 * `reason` is what the SDKs read from a failed POST, named as the pinned
 * authorize refusal is.
 */
function partnerSuspendedResponse(): Response {
  const error = new OAuthError("access_denied", PARTNER_SUSPENDED_READS);
  const response = oauthJson({ ...toErrorBody(error), reason: "partner_suspended" }, error.status);
  response.headers.set(
    "WWW-Authenticate",
    'Bearer error="access_denied", error_description="this partner is suspended"',
  );
  return response;
}

/**
 * What a request's credential and the key's principal found for it (null:
 * none, unknown, revoked or expired) come to: the principal, the 401
 * response for a missing, unknown, revoked or expired key, or the 403 for a
 * key of a suspended partner. An accepted key's use is noted.
 */
export function acceptApiKey<Found extends KeyCheck>(
  credential: ApiKeyCredential,
  principal: Found | null,
): Found | Response {
  if (principal?.partnerSuspended) return partnerSuspendedResponse();
  if (principal) {
    noteKeyUsed(principal.apiKeyId);
    return principal;
  }
  return refuseApiKey(credential);
}

/**
 * The 401 for a missing key (challenged without an error code), or for one
 * that is unknown, revoked or expired (`error="invalid_token"`).
 */
export function refuseApiKey(credential: ApiKeyCredential): Response {
  const missing = credential.kind === "none";
  const description = missing
    ? "an API key is required"
    : "the API key is invalid, revoked or expired";
  return bearerErrorResponse(new OAuthError("invalid_token", description), { missing });
}

/** API-key authentication for a request (acceptApiKey), the key looked up on its own. */
export async function authenticateApiKeyRequest(
  request: Request,
): Promise<ApiKeyPrincipal | Response> {
  const credential = readApiKeyCredential(request);
  const principal = credential.kind === "key" ? await findActiveApiKey(credential.key) : null;
  return acceptApiKey(credential, principal);
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

/** The 403 for a valid key on an operation its scope does not permit (RFC 6750 §3.1). */
export function insufficientScope(): Response {
  return bearerErrorResponse(
    new OAuthError("insufficient_scope", "the accounts.read scope does not permit this operation"),
  );
}

/**
 * Per /docs/data, a key's scope permits exactly the five data operations; every
 * other API path answers 403 insufficient_scope to a valid key. A person's own
 * key may also use the bank list and start a bank connection (docs/own-data.md).
 */
export async function refuseOutsideScope(request: Request): Promise<Response> {
  const principal = await authenticateApiKeyOrRefuse(request);
  if (principal instanceof Response) return principal;
  return insufficientScope();
}
