import { describe, expect, it } from "vitest";
import { handleRevokeRequest } from "./revoke";
import { handleUserinfoRequest } from "./userinfo";
import {
  basicAuthorization,
  createTestClient,
  formRequest,
  ISSUER,
  mintApiKey,
  type TestClient,
} from "../../test/oauth-fixtures";

async function mintKey(client: TestClient): Promise<string> {
  return (await mintApiKey(client)).key;
}

const revoke = (client: TestClient, body: Record<string, string>) =>
  handleRevokeRequest(
    formRequest("/oauth/revoke", body, {
      Authorization: basicAuthorization(client.clientId, client.clientSecret),
    }),
  );

const userinfoStatus = async (key: string, header: "bearer" | "x-api-key" = "bearer") =>
  (
    await handleUserinfoRequest(
      new Request(`${ISSUER}/oauth/userinfo`, {
        headers: header === "bearer" ? { Authorization: `Bearer ${key}` } : { "X-Api-Key": key },
      }),
    )
  ).status;

describe("revocation (RFC 7009; docs/protocol.md#api-keys, /docs/token)", () => {
  it("revokes the client's key: 200, empty body, and the very next request is refused", async () => {
    const client = await createTestClient();
    const key = await mintKey(client);
    const response = await revoke(client, { token: key, token_type_hint: "access_token" });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
    expect(await userinfoStatus(key)).toBe(401);
    expect(await userinfoStatus(key, "x-api-key")).toBe(401);
  });

  it("answers 200 for an unknown key", async () => {
    const client = await createTestClient();
    expect((await revoke(client, { token: "ebk_unknown" })).status).toBe(200);
  });

  it("leaves another client's key alive, still answering 200", async () => {
    const owner = await createTestClient();
    const other = await createTestClient();
    const key = await mintKey(owner);
    expect((await revoke(other, { token: key })).status).toBe(200);
    expect(await userinfoStatus(key)).toBe(200);
  });

  it("a wrong secret → 401 invalid_client with Basic realm, and the key lives", async () => {
    const client = await createTestClient();
    const key = await mintKey(client);
    const response = await revoke({ ...client, clientSecret: "obs_wrong" }, { token: key });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Basic realm="oauth"');
    expect(await response.json()).toMatchObject({ error: "invalid_client" });
    expect(await userinfoStatus(key)).toBe(200);
  });

  it("authenticates client_secret_post too", async () => {
    const client = await createTestClient();
    const key = await mintKey(client);
    const response = await handleRevokeRequest(
      formRequest("/oauth/revoke", {
        token: key,
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }),
    );
    expect(response.status).toBe(200);
    expect(await userinfoStatus(key)).toBe(401);
  });

  it("refuses consent close-pairs as a whole and leaves the key alive", async () => {
    const client = await createTestClient();
    const key = await mintKey(client);
    const response = await revoke(client, { token: key, connection_id: "c1", eb_session_id: "s1" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "invalid_request",
      error_description: "unknown connection",
    });
    expect(await userinfoStatus(key)).toBe(200);
  });

  it("a missing token → 400 invalid_request", async () => {
    const client = await createTestClient();
    expect((await revoke(client, {})).status).toBe(400);
  });
});
