/** The token response of POST /oauth/token. */
export interface TokenResponse {
  access_token: string; // the ebk_… API key, valid 365 days
  token_type: "Bearer";
  expires_in: number;
  scope: string;
  apiKey: string; // the same key, for first-generation clients
  apiBaseUrl: string;
  user: string; // the tenant subject the key reads for
}

/** Exchange the relayed code and your PKCE verifier for an API key (client_secret_basic). */
export async function exchangeCode(options: {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  code: string;
  verifier: string;
}): Promise<TokenResponse> {
  // Each half is percent-encoded before it is joined and base64'd.
  const pair = `${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`;
  const response = await fetch(`${options.issuer}/oauth/token`, {
    method: "POST",
    headers: {
      Authorization: `Basic ${Buffer.from(pair).toString("base64")}`,
      "Content-Type": "application/x-www-form-urlencoded",
      Accept: "application/json",
    },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: options.code,
      code_verifier: options.verifier,
      redirect_uri: options.redirectUri,
    }),
  });
  const body = (await response.json()) as TokenResponse & { error?: string };
  // 400 invalid_grant is final for this code: start a new authorization.
  if (!response.ok) throw new Error(`token exchange failed: ${response.status} ${body.error}`);
  return body;
}
