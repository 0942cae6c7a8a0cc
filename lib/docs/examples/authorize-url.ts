import { createHash, randomBytes } from "node:crypto";

/**
 * Build the authorize URL for one sign-in. Keep `state` and `verifier` on your
 * server (keyed by `state`) until the relay comes back: you need the verifier
 * for the token exchange and the state to find this pending login again.
 */
export async function buildAuthorizeUrl(options: {
  issuer: string; // e.g. "https://bank-connect.example", no trailing slash
  clientId: string; // obc_…
  redirectUri: string; // registered character for character
  loginHint?: string;
}): Promise<{ url: string; state: string; verifier: string }> {
  // Discovery: the issuer must be exactly the one you asked for.
  const response = await fetch(`${options.issuer}/.well-known/oauth-authorization-server`, {
    headers: { Accept: "application/json" },
  });
  if (!response.ok) throw new Error(`discovery failed: HTTP ${response.status}`);
  const discovery = (await response.json()) as { issuer: string; authorization_endpoint: string };
  if (discovery.issuer !== options.issuer) throw new Error("issuer mismatch");

  // PKCE (S256): 32 random bytes as the verifier, its SHA-256 as the challenge.
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const state = randomBytes(16).toString("base64url");

  const params = new URLSearchParams({
    response_type: "code",
    client_id: options.clientId,
    redirect_uri: options.redirectUri,
    scope: "accounts.read",
    state,
    code_challenge: challenge,
    code_challenge_method: "S256",
    response_mode: "form_post",
  });
  if (options.loginHint) params.set("login_hint", options.loginHint);
  return { url: `${discovery.authorization_endpoint}?${params}`, state, verifier };
}
