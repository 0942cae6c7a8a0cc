import { GRANT_TYPES } from "./grants";

/**
 * RFC 8414 server metadata (/docs). The vendor block's name
 * is a deployment setting; the published SDKs expect `open_banking_io`.
 */

export const SCOPE = "accounts.read";
export const RELAY_FIELDS = ["code", "state", "iss", "privateKey", "publicKey"] as const;
export const CLIENT_AUTH_METHODS = ["client_secret_post", "client_secret_basic"] as const;
export const API_KEY_HEADER = "X-Api-Key";
export const LOGIN_CHALLENGES = ["pin_code"] as const;
/** The discovery response may be cached for one hour (/docs/errors). */
export const METADATA_MAX_AGE_SECONDS = 3600;

export interface MetadataSettings {
  issuer: string;
  vendorBlock: string;
  documentationUrl: string;
  recipientKeyRequired: boolean;
}

export function buildServerMetadata(settings: MetadataSettings) {
  const { issuer } = settings;
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    scopes_supported: [SCOPE],
    response_types_supported: ["code"],
    response_modes_supported: ["form_post"],
    grant_types_supported: [...GRANT_TYPES],
    token_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: settings.documentationUrl,
    [settings.vendorBlock]: {
      userinfo_endpoint: `${issuer}/oauth/userinfo`,
      api_base_url: issuer,
      api_key_header: API_KEY_HEADER,
      bearer_supported: true,
      login_challenges_supported: [...LOGIN_CHALLENGES],
      key_relay: { response_mode: "form_post", fields: [...RELAY_FIELDS] },
      recipient_key_supported: true,
      recipient_key_required: settings.recipientKeyRequired,
      documentation: `${settings.documentationUrl.replace(/\/+$/, "")}/partners`,
    },
  };
}
