import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../api/openapi";
import { OAuthError } from "../errors";
import { buildServerMetadata } from "../metadata";
import { GRANT_TYPES, GRANTS, grantFor, requireGrantParameters, type TokenParams } from ".";

const settings = {
  issuer: "https://bank-connect.example",
  vendorBlock: "open_banking_io",
  documentationUrl: "https://bank-connect.example/docs",
  recipientKeyRequired: false,
};

const params = (overrides: Partial<TokenParams> = {}): TokenParams => ({
  grantType: "authorization_code",
  code: "a-code",
  codeVerifier: "a-verifier",
  redirectUri: null,
  clientId: null,
  clientSecret: null,
  ...overrides,
});

function refusal(run: () => void): { code: string; description: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof OAuthError) return { code: error.code, description: error.description };
    throw error;
  }
  throw new Error("not refused");
}

describe("the token endpoint's grant table", () => {
  it("is what discovery publishes as grant_types_supported", () => {
    expect(buildServerMetadata(settings).grant_types_supported).toEqual(GRANT_TYPES);
    expect(GRANT_TYPES).toEqual(["authorization_code"]);
  });

  it("is what the OpenAPI document's token request accepts, with each grant's parameters", () => {
    const document = openApiDocument() as unknown as {
      paths: Record<
        string,
        {
          post: {
            requestBody: {
              content: Record<
                string,
                {
                  schema: {
                    properties: Record<string, { enum?: string[] }>;
                    required: string[];
                  };
                }
              >;
            };
          };
        }
      >;
    };
    const body = document.paths["/oauth/token"]?.post.requestBody.content;
    const schema = body?.["application/x-www-form-urlencoded"]?.schema;
    expect(schema?.properties.grant_type?.enum).toEqual(GRANT_TYPES);
    for (const grant of Object.values(GRANTS)) {
      for (const parameter of grant.parameters)
        expect(schema?.properties).toHaveProperty(parameter.wire);
    }
    expect(schema?.required).toEqual(["grant_type", "code", "code_verifier"]);
  });

  it("refuses a missing grant_type as invalid_request and an unknown one naming the supported", () => {
    expect(refusal(() => grantFor(null))).toEqual({
      code: "invalid_request",
      description: "grant_type is required",
    });
    for (const unknown of ["client_credentials", "refresh_token", "__proto__", "constructor"]) {
      expect(refusal(() => grantFor(unknown))).toEqual({
        code: "unsupported_grant_type",
        description: "grant_type must be one of: authorization_code",
      });
    }
  });

  it("names the first missing parameter of the grant, in its order", () => {
    const grant = grantFor("authorization_code");
    expect(
      refusal(() => requireGrantParameters(grant, params({ code: null, codeVerifier: null }))),
    ).toEqual({ code: "invalid_request", description: "code is required" });
    expect(refusal(() => requireGrantParameters(grant, params({ codeVerifier: null })))).toEqual({
      code: "invalid_request",
      description: "code_verifier is required",
    });
    expect(() => requireGrantParameters(grant, params())).not.toThrow();
  });
});
