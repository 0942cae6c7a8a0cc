import type { AuthenticatedClient } from "../client-auth";
import type { IssuedKey } from "../codes";

/** The token request's parameters, from a form body or a first-generation JSON body. */
export interface TokenParams {
  grantType: string | null;
  code: string | null;
  codeVerifier: string | null;
  redirectUri: string | null;
  clientId: string | null;
  clientSecret: string | null;
}

/** A token parameter as it is spelled on the wire, with the field it is read into. */
export interface GrantParameter {
  wire: string;
  field: Exclude<keyof TokenParams, "grantType" | "clientId" | "clientSecret">;
  required: boolean;
}

/**
 * One grant type of the token endpoint. The endpoint has already read the
 * body, authenticated the client and checked that its partner may obtain
 * keys; the grant checks that its required parameters are present (in the
 * order listed, each named when missing) and issues the key.
 */
export interface Grant {
  parameters: readonly GrantParameter[];
  issue(request: GrantRequest): Promise<IssuedKey>;
}

export interface GrantRequest {
  params: TokenParams;
  client: AuthenticatedClient;
  clientIp: string | null;
}
