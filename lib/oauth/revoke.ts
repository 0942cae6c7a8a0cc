import { clientIpOf } from "../http/client-ip";
import { revokeClientApiKey } from "../keys/api-keys";
import { OAuthError } from "./errors";
import { authenticateClient, readClientCredentials } from "./client-auth";
import { assertNoDuplicates, bodyKind, optionalParam, readOAuthForm } from "./params";
import { oauthErrorResponse } from "./responses";

/**
 * POST /oauth/revoke (RFC 7009; /docs/token). 200 with an empty body
 * whether or not the key existed; only a key issued to the authenticated
 * client is affected; token_type_hint is accepted and ignored.
 *
 * Closing bank consents through revoke (`connection_id`/`eb_session_id`
 * pairs) is not offered: it depends on GET /api/connections/open-consents,
 * which the key's scope does not permit (/docs/data). A request carrying pairs is refused as a
 * whole and the key stays alive, as /docs/token documents for any refused list.
 */
export async function handleRevokeRequest(request: Request): Promise<Response> {
  try {
    if (bodyKind(request) !== "form") {
      throw new OAuthError(
        "invalid_request",
        "content type must be application/x-www-form-urlencoded",
      );
    }
    const params = await readOAuthForm(request);
    const client = await authenticateClient(
      readClientCredentials(request, {
        clientId: optionalParam(params, "client_id"),
        clientSecret: optionalParam(params, "client_secret"),
      }),
    );
    if (params.has("connection_id") || params.has("eb_session_id")) {
      throw new OAuthError("invalid_request", "unknown connection");
    }
    assertNoDuplicates(params);
    const token = optionalParam(params, "token");
    if (token === null) throw new OAuthError("invalid_request", "token is required");
    await revokeClientApiKey(token, client.id, new Date(), clientIpOf(request));
    return new Response(null, { status: 200, headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    return oauthErrorResponse(error);
  }
}
