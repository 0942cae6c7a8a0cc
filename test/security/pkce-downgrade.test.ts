import { describe, expect, it } from "vitest";
import { db } from "../../lib/db/client";
import { approveFlow } from "../../lib/flow/approve";
import { findFlowByCookie, flowCookieName } from "../../lib/flow/flows";
import { handleAuthorizeRequest } from "../../lib/flow/start";
import { toS256Challenge } from "../../lib/oauth/pkce";
import { handleTokenRequest } from "../../lib/oauth/token";
import {
  basicAuthorization,
  createTestClient,
  createTestUser,
  formRequest,
  ISSUER,
  newVerifier,
  tokenRequest,
  type TestClient,
} from "../oauth-fixtures";

/**
 * PKCE S256 only (docs/security.md), end to end: an authorize request that leaves
 * code_challenge_method out is S256, never plain, so presenting the challenge
 * itself as the verifier fails; a token request without a verifier fails.
 */

/** A code minted for an authorize request that names no code_challenge_method. */
async function codeWithoutMethod(client: TestClient, challenge: string): Promise<string> {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: "accounts.read",
    state: "s",
    code_challenge: challenge,
    response_mode: "form_post",
  });
  const response = await handleAuthorizeRequest(new Request(`${ISSUER}/oauth/authorize?${query}`));
  expect(response.status).toBe(303);
  const setCookie = response.headers.getSetCookie().find((c) => c.startsWith(flowCookieName()));
  const value = decodeURIComponent((setCookie ?? "").split(";")[0]?.split("=")[1] ?? "");
  const flow = await findFlowByCookie(value);
  if (!flow) throw new Error("authorize creates a flow");
  const user = await createTestUser();
  await db().flow.update({ where: { id: flow.id }, data: { userId: user.id, step: "consent" } });
  const approval = await approveFlow(flow.id, user.id);
  return approval.fields.find(([name]) => name === "code")?.[1] ?? "";
}

async function expectInvalid(response: Response, status: number, error: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("cache-control")).toBe("no-store");
  expect(((await response.json()) as { error: string }).error).toBe(error);
}

describe("PKCE downgrade through the endpoints (RFC 7636; docs/security.md)", () => {
  it("a missing code_challenge_method means S256: the challenge presented as a plain verifier → invalid_grant", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const challenge = toS256Challenge(verifier);
    const plain = await codeWithoutMethod(client, challenge);
    await expectInvalid(
      await handleTokenRequest(tokenRequest(client, plain, challenge)),
      400,
      "invalid_grant",
    );
    // The same request with the S256 verifier works: the method was S256 all along.
    const proper = await codeWithoutMethod(client, challenge);
    expect((await handleTokenRequest(tokenRequest(client, proper, verifier))).status).toBe(200);
  });

  it("a real code without code_verifier → 400 invalid_request and no key", async () => {
    const client = await createTestClient();
    const code = await codeWithoutMethod(client, toS256Challenge(newVerifier()));
    const response = await handleTokenRequest(
      formRequest(
        "/oauth/token",
        { grant_type: "authorization_code", code, redirect_uri: client.redirectUri },
        { Authorization: basicAuthorization(client.clientId, client.clientSecret) },
      ),
    );
    const body = await response.clone().text();
    await expectInvalid(response, 400, "invalid_request");
    expect(body).not.toContain("ebk_");
  });
});
