import { describe, expect, it } from "vitest";
import { handleRevokeRequest } from "../oauth/revoke";
import { handleTokenRequest } from "../oauth/token";
import {
  basicAuthorization,
  createTestClient,
  formRequest,
  issueCode,
  newVerifier,
  type TestClient,
} from "../../test/oauth-fixtures";
import {
  eventsFrom,
  eventsWhere,
  expectNoSecrets,
  fromAddress,
  uniqueAddress,
} from "../../test/audit";

/** API key events (docs/audit-log.md): issued by the token exchange, revoked by RFC 7009 or by a code replay. */

const exchange = (client: TestClient, code: string, verifier: string, address: string) =>
  handleTokenRequest(
    formRequest(
      "/oauth/token",
      { grant_type: "authorization_code", code, code_verifier: verifier },
      {
        Authorization: basicAuthorization(client.clientId, client.clientSecret),
        ...fromAddress(address),
      },
    ),
  );

const revoke = (client: TestClient, token: string, address: string) =>
  handleRevokeRequest(
    formRequest(
      "/oauth/revoke",
      { token },
      {
        Authorization: basicAuthorization(client.clientId, client.clientSecret),
        ...fromAddress(address),
      },
    ),
  );

async function issuedKey(client: TestClient, address: string) {
  const verifier = newVerifier();
  const { code, user } = await issueCode(client, verifier);
  const response = await exchange(client, code, verifier, address);
  expect(response.status).toBe(200);
  const { access_token: key } = (await response.json()) as { access_token: string };
  return { key, code, verifier, user };
}

describe("API key events", () => {
  it("the token exchange records one api_key.issued: the client as actor, its address, the key's prefix only", async () => {
    const client = await createTestClient();
    const address = uniqueAddress();
    const { key, code, verifier, user } = await issuedKey(client, address);

    const events = await eventsFrom(address);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "api_key.issued",
      actorKind: "client",
      actorId: client.clientId,
      partnerId: client.partnerId,
      clientId: client.clientId,
      userId: user.id,
      clientIp: address,
      subject: key.slice(0, 12),
      details: { scope: "accounts.read" },
    });
    expectNoSecrets(events, [key, key.slice(12), code, verifier, client.clientSecret]);
  });

  it("an RFC 7009 revocation records one api_key.revoked; repeating it or another client's try records nothing", async () => {
    const client = await createTestClient();
    const other = await createTestClient();
    const { key } = await issuedKey(client, uniqueAddress());
    const address = uniqueAddress();

    expect((await revoke(other, key, address)).status).toBe(200);
    expect(await eventsFrom(address)).toEqual([]);
    expect((await revoke(client, key, address)).status).toBe(200);
    expect((await revoke(client, key, address)).status).toBe(200);

    const events = await eventsFrom(address);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "api_key.revoked",
      actorKind: "client",
      actorId: client.clientId,
      partnerId: client.partnerId,
      clientId: client.clientId,
      clientIp: address,
      subject: key.slice(0, 12),
      details: { reason: "revocation_request" },
    });
    expectNoSecrets(events, [key, key.slice(12), client.clientSecret, other.clientSecret]);
  });

  it("a code replay records api_key.revoked (code_replay) from the replaying address", async () => {
    const client = await createTestClient();
    const { key, code, verifier } = await issuedKey(client, uniqueAddress());
    const address = uniqueAddress();
    expect((await exchange(client, code, verifier, address)).status).toBe(400);
    expect((await exchange(client, code, verifier, address)).status).toBe(400);

    const events = await eventsFrom(address);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "api_key.revoked",
      actorKind: "client",
      actorId: client.clientId,
      partnerId: client.partnerId,
      subject: key.slice(0, 12),
      details: { reason: "code_replay" },
    });
    expectNoSecrets(events, [key, code, verifier, client.clientSecret]);
  });

  it("20 concurrent redemptions of one code record exactly one issue and one revocation", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    const address = uniqueAddress();
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => exchange(client, code, verifier, address)),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);

    const events = await eventsWhere({ clientId: client.clientId });
    expect(events.map((event) => event.type).sort()).toEqual([
      "api_key.issued",
      "api_key.revoked",
      "client.created",
    ]);
  });
});
