import { OAuthError } from "../errors";
import { authorizationCodeGrant } from "./authorization-code";
import type { Grant, TokenParams } from "./grant";

export type { Grant, GrantParameter, GrantRequest, TokenParams } from "./grant";

/**
 * The token endpoint's grants, by grant_type. Discovery's
 * grant_types_supported and the OpenAPI document's token request are read
 * from this table: a new grant is one module and one row here.
 */
export const GRANTS = {
  authorization_code: authorizationCodeGrant,
} as const satisfies Record<string, Grant>;

export type GrantType = keyof typeof GRANTS;

export const GRANT_TYPES = Object.keys(GRANTS) as GrantType[];

const isGrantType = (value: string): value is GrantType => Object.hasOwn(GRANTS, value);

/** The grant for the request's grant_type, or the RFC 6749 §5.2 refusal. */
export function grantFor(grantType: string | null): Grant {
  if (grantType === null) throw new OAuthError("invalid_request", "grant_type is required");
  if (!isGrantType(grantType)) {
    throw new OAuthError(
      "unsupported_grant_type",
      `grant_type must be one of: ${GRANT_TYPES.join(", ")}`,
    );
  }
  return GRANTS[grantType];
}

/** The grant's required parameters, in its order: the first one missing is named. */
export function requireGrantParameters(grant: Grant, params: TokenParams): void {
  for (const parameter of grant.parameters) {
    if (parameter.required && params[parameter.field] === null) {
      throw new OAuthError("invalid_request", `${parameter.wire} is required`);
    }
  }
}
