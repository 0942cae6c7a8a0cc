import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { hashApiKey } from "../keys/api-keys";
import { rotateClientSecret } from "../partners/clients";
import { handleTokenRequest } from "./token";
import { handleUserinfoRequest } from "./userinfo";
import {
  basicAuthorization,
  createTestClient,
  formRequest,
  ISSUER,
  issueCode,
  newVerifier,
  REDIRECT_URI,
  tokenRequest,
} from "../../test/oauth-fixtures";

type TokenBody = Record<string, unknown>;

async function expectError(response: Response, status: number, error: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get("cache-control")).toBe("no-store");
  const body = (await response.json()) as TokenBody;
  expect(body.error).toBe(error);
  expect(typeof body.error_description).toBe("string");
  return body;
}

const userinfo = (key: string) =>
  handleUserinfoRequest(
    new Request(`${ISSUER}/oauth/userinfo`, { headers: { Authorization: `Bearer ${key}` } }),
  );

describe("token exchange: success (/docs/token)", () => {
  it("issues an ebk_ key with the first-generation fields, never cached", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code, user } = await issueCode(client, verifier);
    const response = await handleTokenRequest(tokenRequest(client, code, verifier, REDIRECT_URI));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("pragma")).toBe("no-cache");
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await response.json()) as TokenBody;
    expect(body).toEqual({
      access_token: expect.stringMatching(/^ebk_[A-Za-z0-9_-]{43}$/),
      token_type: "Bearer",
      expires_in: 31536000,
      scope: "accounts.read",
      apiKey: body.access_token,
      apiBaseUrl: ISSUER,
      user: `wl:${client.partnerId}:connect:${user.email}`,
    });
    const stored = await db().apiKey.findUniqueOrThrow({
      where: { keyHash: hashApiKey(String(body.access_token)) },
    });
    expect(stored.prefix).toBe(String(body.access_token).slice(0, 12));
    expect(stored.expiresAt.getTime() - stored.createdAt.getTime()).toBe(31536000 * 1000);
  });

  it("accepts the absence of redirect_uri", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    expect((await handleTokenRequest(tokenRequest(client, code, verifier))).status).toBe(200);
  });

  it("authenticates client_secret_post", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    const response = await handleTokenRequest(
      formRequest("/oauth/token", {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        client_id: client.clientId,
        client_secret: client.clientSecret,
      }),
    );
    expect(response.status).toBe(200);
  });

  it("accepts the first-generation JSON body", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    const response = await handleTokenRequest(
      new Request(`${ISSUER}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          code,
          codeVerifier: verifier,
          clientId: client.clientId,
          clientSecret: client.clientSecret,
        }),
      }),
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as TokenBody;
    expect(body.apiKey).toBe(body.access_token);
  });

  it("decodes percent-encoded Basic credentials (the SDKs' test vector)", async () => {
    expect(basicAuthorization("obc_demo", "s3cret:with/odd chars")).toBe(
      `Basic ${Buffer.from("obc_demo:s3cret%3Awith%2Fodd%20chars").toString("base64")}`,
    );
    const client = await createTestClient();
    const secret = "s3cret:with/odd chars+plus";
    const { hashClientSecret } = await import("../keys/client-credentials");
    await db().client.update({
      where: { id: client.clientId },
      data: { secretHash: hashClientSecret(secret) },
    });
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    const response = await handleTokenRequest(
      tokenRequest({ ...client, clientSecret: secret }, code, verifier),
    );
    expect(response.status).toBe(200);
  });

  it("accepts the previous secret for 24 hours after a rotation (docs/protocol.md#client-authentication)", async () => {
    const client = await createTestClient();
    await rotateClientSecret(client.clientId);
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    expect((await handleTokenRequest(tokenRequest(client, code, verifier))).status).toBe(200);

    await db().client.update({
      where: { id: client.clientId },
      data: { previousSecretExpiresAt: new Date(Date.now() - 1000) },
    });
    const second = await issueCode(client, verifier);
    await expectError(
      await handleTokenRequest(tokenRequest(client, second.code, verifier)),
      401,
      "invalid_client",
    );
  });
});

describe("token exchange: errors (/docs/errors)", () => {
  it("a missing parameter → 400 invalid_request", async () => {
    const client = await createTestClient();
    const auth = { Authorization: basicAuthorization(client.clientId, client.clientSecret) };
    await expectError(
      await handleTokenRequest(
        formRequest("/oauth/token", { grant_type: "authorization_code", code_verifier: "v" }, auth),
      ),
      400,
      "invalid_request",
    );
    await expectError(
      await handleTokenRequest(
        formRequest("/oauth/token", { grant_type: "authorization_code", code: "c" }, auth),
      ),
      400,
      "invalid_request",
    );
    await expectError(
      await handleTokenRequest(
        formRequest("/oauth/token", { code: "c", code_verifier: "v" }, auth),
      ),
      400,
      "invalid_request",
    );
  });

  it("both authentication methods → 400 invalid_request", async () => {
    const client = await createTestClient();
    const response = await handleTokenRequest(
      formRequest(
        "/oauth/token",
        {
          grant_type: "authorization_code",
          code: "c",
          code_verifier: "v",
          client_id: client.clientId,
          client_secret: client.clientSecret,
        },
        { Authorization: basicAuthorization(client.clientId, client.clientSecret) },
      ),
    );
    await expectError(response, 400, "invalid_request");
  });

  it("a content type neither form nor JSON → 400 invalid_request", async () => {
    for (const type of ["text/plain", "multipart/form-data; boundary=x", ""]) {
      const response = await handleTokenRequest(
        new Request(`${ISSUER}/oauth/token`, {
          method: "POST",
          headers: type ? { "Content-Type": type } : {},
          body: "grant_type=authorization_code",
        }),
      );
      await expectError(response, 400, "invalid_request");
    }
  });

  it("a duplicated parameter → 400 invalid_request", async () => {
    const response = await handleTokenRequest(
      new Request(`${ISSUER}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "grant_type=authorization_code&code=a&code=b&code_verifier=v",
      }),
    );
    await expectError(response, 400, "invalid_request");
  });

  it("grant_type other than authorization_code → 400 unsupported_grant_type", async () => {
    const client = await createTestClient();
    const response = await handleTokenRequest(
      formRequest(
        "/oauth/token",
        { grant_type: "client_credentials" },
        { Authorization: basicAuthorization(client.clientId, client.clientSecret) },
      ),
    );
    await expectError(response, 400, "unsupported_grant_type");
  });

  it("unknown client or wrong secret → 401 invalid_client with a Basic challenge, whichever way the client authenticated", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    const wrong = await handleTokenRequest(
      tokenRequest({ ...client, clientSecret: "obs_wrong" }, code, verifier),
    );
    await expectError(wrong, 401, "invalid_client");
    expect(wrong.headers.get("www-authenticate")).toBe('Basic realm="oauth"');
    const unknown = await handleTokenRequest(
      tokenRequest({ ...client, clientId: "obc_nobody" }, code, verifier),
    );
    await expectError(unknown, 401, "invalid_client");
    const post = await handleTokenRequest(
      formRequest("/oauth/token", {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        client_id: client.clientId,
        client_secret: "obs_wrong",
      }),
    );
    await expectError(post, 401, "invalid_client");
    expect(post.headers.get("www-authenticate")).toBe('Basic realm="oauth"');
    const anonymous = await handleTokenRequest(
      formRequest("/oauth/token", {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
      }),
    );
    await expectError(anonymous, 401, "invalid_client");
    expect(anonymous.headers.get("www-authenticate")).toBe('Basic realm="oauth"');
    // The failed attempts did not touch the code.
    expect((await handleTokenRequest(tokenRequest(client, code, verifier))).status).toBe(200);
  });

  it("malformed Basic credentials → 401 invalid_client", async () => {
    for (const header of [
      "Basic !!!",
      "Basic " + Buffer.from("no-colon").toString("base64"),
      "Basic " + Buffer.from("obc_x:%E0%A4%A").toString("base64"),
    ]) {
      const response = await handleTokenRequest(
        formRequest(
          "/oauth/token",
          { grant_type: "authorization_code", code: "c", code_verifier: "v" },
          { Authorization: header },
        ),
      );
      await expectError(response, 401, "invalid_client");
    }
  });
});

describe("authorization code states (RFC 6749 §4.1.2; docs/protocol.md#authorization-codes)", () => {
  it("unknown code → invalid_grant", async () => {
    const client = await createTestClient();
    await expectError(
      await handleTokenRequest(tokenRequest(client, "no-such-code", newVerifier())),
      400,
      "invalid_grant",
    );
  });

  it("a wrong verifier → invalid_grant, and the code is burned", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    await expectError(
      await handleTokenRequest(tokenRequest(client, code, newVerifier())),
      400,
      "invalid_grant",
    );
    await expectError(
      await handleTokenRequest(tokenRequest(client, code, verifier)),
      400,
      "invalid_grant",
    );
  });

  it("a replay → invalid_grant, and the key minted by the first use is revoked", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    const first = (await (
      await handleTokenRequest(tokenRequest(client, code, verifier))
    ).json()) as TokenBody;
    expect((await userinfo(String(first.access_token))).status).toBe(200);
    await expectError(
      await handleTokenRequest(tokenRequest(client, code, verifier)),
      400,
      "invalid_grant",
    );
    expect((await userinfo(String(first.access_token))).status).toBe(401);
  });

  it("expires after 300 seconds", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code, approval } = await issueCode(client, verifier);
    const stored = await db().authorizationCode.findFirstOrThrow({
      where: { flow: { redirectUri: approval.redirectUri }, clientId: client.clientId },
    });
    expect(stored.expiresAt.getTime() - stored.issuedAt.getTime()).toBe(300_000);
    await db().authorizationCode.update({
      where: { id: stored.id },
      data: { expiresAt: new Date(Date.now() - 1) },
    });
    await expectError(
      await handleTokenRequest(tokenRequest(client, code, verifier)),
      400,
      "invalid_grant",
    );
  });

  it("a code bound to another client → invalid_grant, and the rightful client can still use it", async () => {
    const owner = await createTestClient();
    const other = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(owner, verifier);
    await expectError(
      await handleTokenRequest(tokenRequest(other, code, verifier)),
      400,
      "invalid_grant",
    );
    expect((await handleTokenRequest(tokenRequest(owner, code, verifier))).status).toBe(200);
  });

  it("a redirect_uri other than the authorize one → invalid_grant", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    await expectError(
      await handleTokenRequest(
        tokenRequest(client, code, verifier, "https://app.example.com/other"),
      ),
      400,
      "invalid_grant",
    );
  });

  it("20 concurrent redemptions of one code: exactly one key; the replays revoke it", async () => {
    const client = await createTestClient();
    const verifier = newVerifier();
    const { code } = await issueCode(client, verifier);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => handleTokenRequest(tokenRequest(client, code, verifier))),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(19);
    const winner = responses.find((r) => r.status === 200);
    const body = (await winner?.json()) as TokenBody;
    const keys = await db().apiKey.findMany({ where: { clientId: client.clientId } });
    expect(keys).toHaveLength(1);
    expect((await userinfo(String(body.access_token))).status).toBe(401);
  });
});
