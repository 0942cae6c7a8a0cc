import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setSetting } from "../env";
import { accessMailsSettled } from "../oauth/access-mail";
import { createTestClient, issueCode, newVerifier } from "../../test/oauth-fixtures";
import { startServiceServer, type RunningServiceServer } from "../../test/service-server";
import { discover } from "./examples/discover-openid-client";

/**
 * The quick start's openid-client example (lib/docs/examples/discover-openid-client.ts),
 * run as printed over real HTTP against the service's own server, whose
 * issuer is its address here.
 */

let server: RunningServiceServer;
beforeAll(async () => {
  server = await startServiceServer();
  setSetting("ISSUER", server.origin);
});
afterAll(async () => {
  await server.close();
  setSetting("ISSUER", "");
});

describe("discovery with openid-client (/docs)", () => {
  it("finds the service's metadata with algorithm oauth2", async () => {
    const partner = await createTestClient();
    const config = await discover(server.origin, partner.clientId, partner.clientSecret);
    expect(config.serverMetadata()).toMatchObject({
      issuer: server.origin,
      authorization_endpoint: `${server.origin}/oauth/authorize`,
      token_endpoint: `${server.origin}/oauth/token`,
    });
  });

  it("fails without it: the OpenID document it asks for by default does not exist", async () => {
    const partner = await createTestClient();
    const openid = await fetch(`${server.origin}/.well-known/openid-configuration`);
    expect(openid.status).toBe(404);
    const failed = await client
      .discovery(new URL(server.origin), partner.clientId, partner.clientSecret, undefined, {
        execute: [client.allowInsecureRequests],
      })
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(failed).toBeInstanceOf(Error);
    const answer = (failed as Error).cause as Response;
    expect(answer.status).toBe(404);
    expect(answer.url).toBe(`${server.origin}/.well-known/openid-configuration`);
  });

  it("exchanges a code for the API key with the configuration it found", async () => {
    const partner = await createTestClient();
    const config = await discover(server.origin, partner.clientId, partner.clientSecret);
    const verifier = newVerifier();
    const { code } = await issueCode(partner, verifier);
    const relay = new URL(partner.redirectUri);
    relay.search = new URLSearchParams({ code, state: "s-1", iss: server.origin }).toString();
    const tokens = await client.authorizationCodeGrant(config, relay, {
      pkceCodeVerifier: verifier,
      expectedState: "s-1",
    });
    await accessMailsSettled();
    expect(tokens.access_token).toMatch(/^ebk_/);
    expect(tokens.token_type).toBe("bearer");
    expect(tokens.scope).toBe("accounts.read");
  });
});
