import { describe, expect, it } from "vitest";
import { GET } from "./route";

describe("GET /.well-known/oauth-authorization-server (RFC 8414; /docs)", () => {
  it("serves the full metadata document with the vendor block", async () => {
    const response = GET();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const issuer = "http://localhost:3000";
    expect(await response.json()).toEqual({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      scopes_supported: ["accounts.read"],
      response_types_supported: ["code"],
      response_modes_supported: ["form_post"],
      grant_types_supported: ["authorization_code"],
      token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
      revocation_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${issuer}/docs`,
      open_banking_io: {
        userinfo_endpoint: `${issuer}/oauth/userinfo`,
        api_base_url: issuer,
        api_key_header: "X-Api-Key",
        bearer_supported: true,
        login_challenges_supported: ["pin_code"],
        key_relay: {
          response_mode: "form_post",
          fields: ["code", "state", "iss", "privateKey", "publicKey"],
        },
        recipient_key_supported: true,
        recipient_key_required: false,
        documentation: `${issuer}/docs/partners`,
      },
    });
  });

  it("may be cached for one hour (/docs/errors)", () => {
    expect(GET().headers.get("cache-control")).toBe("public, max-age=3600");
  });

  it("carries the API baseline CSP", () => {
    expect(GET().headers.get("content-security-policy")).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
  });
});
