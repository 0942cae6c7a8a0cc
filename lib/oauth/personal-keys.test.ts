import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as connectionsRoute from "../../app/api/connections/route";
import * as userinfoRoute from "../../app/oauth/userinfo/route";
import { generateKeyPair } from "../crypto/envelope";
import { db } from "../db/client";
import { connectBank } from "../../test/bank-data";
import {
  createTestClient,
  createTestUser,
  issueCodeForUser,
  newVerifier,
  tokenRequest,
} from "../../test/oauth-fixtures";
import { accessMailsSettled } from "./access-mail";
import { handleTokenRequest } from "./token";
import { startRouteServer, type RouteServer } from "../../test/route-server";
import { hashApiKey } from "../keys/api-keys";
import {
  COMMAND_LINE_CLIENT,
  issuePersonalKey,
  listPersonalKeys,
  PERSONAL_KEYS_CLIENT,
} from "./personal-keys";

/**
 * Personal keys (docs/own-data.md): a house client's key, issued to the
 * person for their own tenant. Read over HTTP as the command-line client and
 * the SDKs read it.
 */

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({
    "/oauth/userinfo": userinfoRoute,
    "/api/connections": connectionsRoute,
  });
});
afterAll(() => server.close());

async function personWithKey() {
  const keys = generateKeyPair();
  const created = await createTestUser();
  const user = await db().user.update({
    where: { id: created.id },
    data: { publicKey: keys.publicKeyRawB64, publicKeyAt: new Date() },
  });
  return { user, keys };
}

const issue = (userId: string, client = COMMAND_LINE_CLIENT, name: string | null = null) =>
  db().$transaction((tx) => issuePersonalKey(tx, { userId, client, name, clientIp: "192.0.2.7" }));

const get = (path: string, key: string) =>
  fetch(`${server.origin}${path}`, {
    headers: { "X-Api-Key": key, "User-Agent": "open-banking-io/go/0.5.0" },
  });

describe("personal keys", () => {
  it("are keys of a house client: userinfo says partner_id null and the person's own subject", async () => {
    const { user } = await personWithKey();
    const issued = await issue(user.id);
    expect(issued.apiKey).toMatch(/^ebk_/);
    expect(issued.prefix).toBe(issued.apiKey.slice(0, 12));
    const response = await get("/oauth/userinfo", issued.apiKey);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      sub: `user:${user.id}`,
      email: user.email,
      partner_id: null,
      client_id: COMMAND_LINE_CLIENT.id,
      scope: "accounts.read",
      expires_at: issued.expiresAt.toISOString(),
    });
    const stored = await db().apiKey.findUniqueOrThrow({
      where: { keyHash: hashApiKey(issued.apiKey) },
      include: { client: true, tenant: true },
    });
    expect(stored.client).toMatchObject({ partnerId: null, redirectUris: [] });
    expect(stored.tenant).toMatchObject({ userId: user.id, sealingKey: user.publicKey });
    // Only the keyed hash and the shown prefix are kept.
    expect(JSON.stringify(stored)).not.toContain(issued.apiKey);
  });

  it("records the issue with the person as actor, and makes each house client once", async () => {
    const { user } = await personWithKey();
    const issued = await Promise.all([1, 2, 3, 4].map(() => issue(user.id, PERSONAL_KEYS_CLIENT)));
    expect(new Set(issued.map((key) => key.id)).size).toBe(4);
    expect(await db().client.count({ where: { id: PERSONAL_KEYS_CLIENT.id } })).toBe(1);
    const created = await db().auditEvent.count({
      where: { type: "client.created", clientId: PERSONAL_KEYS_CLIENT.id },
    });
    expect(created).toBe(1);
    const events = await db().auditEvent.findMany({
      where: { type: "api_key.issued", userId: user.id },
    });
    expect(events.map((event) => event.subject).sort()).toEqual(
      issued.map((key) => key.prefix).sort(),
    );
    for (const event of events) {
      expect(event).toMatchObject({ actorKind: "user", actorId: user.id, partnerId: null });
    }
  });

  it("read the person's own connections, and nobody else's", async () => {
    const alice = await personWithKey();
    const bob = await personWithKey();
    const aliceKey = await issue(alice.user.id);
    const bobKey = await issue(bob.user.id);
    const tenant = await db().tenant.findUniqueOrThrow({
      where: { subject: `user:${alice.user.id}` },
    });
    const { stored } = await connectBank(tenant.id, alice.keys.publicKeyRawB64);

    const mine = (await (await get("/api/connections", aliceKey.apiKey)).json()) as {
      sessionId: string;
    }[];
    expect(mine.map((connection) => connection.sessionId)).toEqual([stored.connectionId]);
    const others = await get("/api/connections", bobKey.apiKey);
    expect(others.status).toBe(200);
    expect(await others.json()).toEqual([]);
  });

  it("are listed for their person with name, dates and prefix, partner keys left out", async () => {
    const { user } = await personWithKey();
    const cli = await issue(user.id);
    const named = await issue(user.id, PERSONAL_KEYS_CLIENT, "Budget sheet");
    const revoked = await issue(user.id, PERSONAL_KEYS_CLIENT, "Old script");
    await db().apiKey.update({ where: { id: revoked.id }, data: { revokedAt: new Date() } });
    // A partner's key for the same person is an application's access, listed apart.
    const partner = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCodeForUser(partner, verifier, user.id);
    expect((await handleTokenRequest(tokenRequest(partner, code, verifier))).status).toBe(200);
    await accessMailsSettled();
    const listed = await listPersonalKeys(user.id);
    expect(
      listed.map(({ id, name, clientId, prefix }) => ({ id, name, clientId, prefix })),
    ).toEqual([
      { id: cli.id, name: null, clientId: COMMAND_LINE_CLIENT.id, prefix: cli.prefix },
      {
        id: named.id,
        name: "Budget sheet",
        clientId: PERSONAL_KEYS_CLIENT.id,
        prefix: named.prefix,
      },
    ]);
    expect(listed[0]?.expiresAt).toBe(cli.expiresAt.toISOString());
    expect(listed[0]?.lastUsedAt).toBeNull();
  });
});
