import { redeemAuthorizationCode } from "../codes";
import { OAuthError } from "../errors";
import type { Grant } from "./grant";

/**
 * The authorization code grant with PKCE (RFC 6749 §4.1.3, RFC 7636 §4.5):
 * the code and its verifier are required; the redirect URI is compared
 * only when sent, since the code is already bound to the one it was issued for.
 */
export const authorizationCodeGrant: Grant = {
  parameters: [
    { wire: "code", field: "code", required: true },
    { wire: "code_verifier", field: "codeVerifier", required: true },
    { wire: "redirect_uri", field: "redirectUri", required: false },
  ],
  issue({ params, client, clientIp }) {
    const { code, codeVerifier } = params;
    if (code === null || codeVerifier === null) {
      throw new OAuthError("invalid_request", "code and code_verifier are required");
    }
    return redeemAuthorizationCode({
      code,
      codeVerifier,
      clientId: client.id,
      partnerId: client.partnerId,
      redirectUri: params.redirectUri,
      clientIp,
    });
  },
};
