import { describe, expect, it } from "vitest";
import { handleAuthorizeRequest } from "../flow/start";
import { toS256Challenge } from "../oauth/pkce";
import { MAX_REDIRECT_URIS, parseRedirectUris } from "../partners/redirect-uris";
import { createTestClient, ISSUER, newVerifier } from "../../test/oauth-fixtures";
import { LOOPBACK_EXAMPLES, PORT_MATCH, REDIRECT_URI_LIMIT } from "./redirect-uri-examples";

/** What /docs/flow says about loopback redirect URIs is what the service does. */

function authorizeWith(clientId: string, redirectUri: string) {
  const params = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "accounts.read",
    state: "docs-state-1234567890",
    code_challenge: toS256Challenge(newVerifier()),
    code_challenge_method: "S256",
    response_mode: "form_post",
  });
  return handleAuthorizeRequest(new Request(`${ISSUER}/oauth/authorize?${params}`));
}

describe("the loopback redirect URIs of /docs/flow", () => {
  it("names the registration limit the service applies", () => {
    expect(REDIRECT_URI_LIMIT).toBe(MAX_REDIRECT_URIS);
  });

  it.each(LOOPBACK_EXAMPLES)(
    "$uri: registration allowed is $allowed ($why)",
    ({ uri, allowed }) => {
      const result = parseRedirectUris([uri]);
      expect(result.success).toBe(allowed);
      if (!result.success)
        expect(result.problems.map((p) => p.rule)).toEqual(["http_not_loopback"]);
    },
  );

  it("matches the port exactly: another port, or localhost for 127.0.0.1, is refused on authorize", async () => {
    const client = await createTestClient({ redirectUris: [PORT_MATCH.registered] });
    const registered = await authorizeWith(client.clientId, PORT_MATCH.registered);
    expect(registered.status).not.toBe(400);
    for (const uri of [PORT_MATCH.otherPort, PORT_MATCH.otherHost]) {
      const refused = await authorizeWith(client.clientId, uri);
      expect(refused.status, uri).toBe(400);
      expect(await refused.text()).toContain("redirect_uri is not registered");
    }
  });
});
