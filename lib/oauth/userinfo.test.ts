import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { hashApiKey } from "../keys/api-keys";
import { refuseOutsideScope } from "./bearer";
import { handleUserinfoRequest } from "./userinfo";
import { createTestClient, ISSUER, mintApiKey } from "../../test/oauth-fixtures";

async function mintKey(options: { house?: boolean } = {}) {
  const client = await createTestClient(options);
  return { client, ...(await mintApiKey(client)) };
}

const get = (path: string, headers: Record<string, string>) =>
  new Request(`${ISSUER}${path}`, { headers });

describe("userinfo (/docs/token)", () => {
  it("answers the snake_case record for a Bearer key", async () => {
    const { client, user, key } = await mintKey();
    const response = await handleUserinfoRequest(
      get("/oauth/userinfo", { Authorization: `Bearer ${key}` }),
    );
    expect(response.status).toBe(200);
    const stored = await db().apiKey.findUniqueOrThrow({ where: { keyHash: hashApiKey(key) } });
    expect(await response.json()).toEqual({
      sub: `wl:${client.partnerId}:connect:${user.email}`,
      email: user.email,
      partner_id: client.partnerId,
      client_id: client.clientId,
      scope: "accounts.read",
      expires_at: stored.expiresAt.toISOString(),
    });
  });

  it("treats X-Api-Key exactly like Bearer (/docs/data)", async () => {
    const { key } = await mintKey();
    const bearer = await handleUserinfoRequest(
      get("/oauth/userinfo", { Authorization: `Bearer ${key}` }),
    );
    const header = await handleUserinfoRequest(get("/oauth/userinfo", { "X-Api-Key": key }));
    expect(header.status).toBe(200);
    expect(await header.json()).toEqual(await bearer.json());
  });

  it("gives a house client's key a null partner_id and the user's own subject", async () => {
    const { user, key } = await mintKey({ house: true });
    const body = (await (
      await handleUserinfoRequest(get("/oauth/userinfo", { "X-Api-Key": key }))
    ).json()) as Record<string, unknown>;
    expect(body.partner_id).toBeNull();
    expect(body.sub).toBe(`user:${user.id}`);
  });

  it("refuses missing, unknown, conflicting, expired and revoked keys with 401", async () => {
    const { key } = await mintKey();
    // No key at all is challenged without an error code (RFC 6750 §3.1); the body is the same.
    const cases: [Record<string, string>, string][] = [
      [{}, 'Bearer realm="api"'],
      [{ Authorization: "Bearer ebk_unknown" }, 'Bearer error="invalid_token"'],
      [
        { Authorization: `Bearer ${key}`, "X-Api-Key": "ebk_other" },
        'Bearer error="invalid_token"',
      ],
    ];
    for (const [headers, challenge] of cases) {
      const response = await handleUserinfoRequest(get("/oauth/userinfo", headers));
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: "invalid_token" });
      expect(response.headers.get("www-authenticate")).toBe(challenge);
    }
    // 365 days elapse → expired → 401 (docs/protocol.md#api-keys).
    await db().apiKey.update({
      where: { keyHash: hashApiKey(key) },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    expect((await handleUserinfoRequest(get("/oauth/userinfo", { "X-Api-Key": key }))).status).toBe(
      401,
    );
  });
});

describe("scope (/docs/data)", () => {
  it("answers 403 insufficient_scope to a valid key outside the five data operations", async () => {
    const { key } = await mintKey();
    for (const path of [
      "/api/partner/me",
      "/api/connections/open-consents",
      "/api/aspsps",
      "/api/authorizations",
    ]) {
      const response = await refuseOutsideScope(get(path, { "X-Api-Key": key }));
      expect(response.status).toBe(403);
      expect(response.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope"');
      expect(await response.json()).toMatchObject({ error: "insufficient_scope" });
    }
  });

  it("answers 401 there to a revoked key", async () => {
    const { key } = await mintKey();
    await db().apiKey.update({
      where: { keyHash: hashApiKey(key) },
      data: { revokedAt: new Date() },
    });
    expect((await refuseOutsideScope(get("/api/partner/me", { "X-Api-Key": key }))).status).toBe(
      401,
    );
  });
});
