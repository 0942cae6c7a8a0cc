import { describe, expect, it } from "vitest";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  issueCode,
  mintApiKey,
  newVerifier,
  REDIRECT_URI,
  signedInCookie,
  tokenRequest,
  type TestClient,
} from "../../test/oauth-fixtures";
import { generateKeyPair } from "../crypto/envelope";
import { db } from "../db/client";
import { setSetting } from "../env";
import { authenticateApiKeyRequest } from "../oauth/bearer";
import { hashClientSecret, PREVIOUS_SECRET_GRACE_MS } from "../keys/client-credentials";
import { authenticateClient } from "../oauth/client-auth";
import { handleTokenRequest } from "../oauth/token";
import {
  handleCreateClient,
  handleDeleteClient,
  handleListClients,
  handleRotateClientSecret,
  handleUpdateClient,
} from "./client-api";
import { REDIRECT_URI_RULES } from "./redirect-uris";
import { ownerOf, type TestOwner } from "../../test/partner-owners";

const firstClient = (owner: TestOwner): TestClient => {
  const client = owner.clients[0];
  if (!client) throw new Error("the owner has no client");
  return client;
};

function ownerRequest(
  owner: TestOwner,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  return new Request(`${ISSUER}${path}`, {
    method,
    headers: {
      Cookie: owner.cookie,
      Origin: ISSUER,
      "X-CSRF-Token": owner.csrf,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const list = (owner: TestOwner, query = "") =>
  handleListClients(ownerRequest(owner, "GET", `/api/partner/clients${query}`));
const create = (owner: TestOwner, body: unknown, query = "") =>
  handleCreateClient(ownerRequest(owner, "POST", `/api/partner/clients${query}`, body));
const update = (owner: TestOwner, clientId: string, body: unknown, query = "") =>
  handleUpdateClient(
    ownerRequest(owner, "PATCH", `/api/partner/clients/${clientId}${query}`, body),
    clientId,
  );
const rotate = (owner: TestOwner, clientId: string, now?: Date) =>
  handleRotateClientSecret(
    ownerRequest(owner, "POST", `/api/partner/clients/${clientId}/rotate-secret`),
    clientId,
    now,
  );
const remove = (owner: TestOwner, clientId: string) =>
  handleDeleteClient(ownerRequest(owner, "DELETE", `/api/partner/clients/${clientId}`), clientId);

interface ClientWire {
  clientId: string;
  name: string;
  redirectUris: string[];
  createdAt: string;
  previousSecretExpiresAt: string | null;
}

async function listed(owner: TestOwner): Promise<ClientWire[]> {
  const response = await list(owner);
  expect(response.status).toBe(200);
  return (await response.json()) as ClientWire[];
}

/** The status the real token endpoint answers a fresh code exchanged with these credentials. */
async function exchangeStatus(client: TestClient): Promise<number> {
  const verifier = newVerifier();
  const { code } = await issueCode(client, verifier);
  const response = await handleTokenRequest(tokenRequest(client, code, verifier));
  return response.status;
}

const withSecret = (client: TestClient, clientSecret: string): TestClient => ({
  ...client,
  clientSecret,
});

const violationsOf = async (response: Response) => {
  expect(response.status).toBe(400);
  const body = (await response.json()) as {
    error: string;
    error_description: string;
    violations: { field: string; code: string; message: string }[];
  };
  expect(body.error).toBe("invalid_client_metadata");
  expect(body.error_description).toBe(body.violations.map((v) => v.message).join("; "));
  return body.violations;
};

describe("GET /api/partner/clients", () => {
  it("lists only the partner's clients, without secrets or hashes", async () => {
    const owner = await ownerOf();
    await createTestClient(); // another partner's
    const clients = await listed(owner);
    const mine = firstClient(owner);
    expect(clients).toHaveLength(1);
    expect(clients[0]).toEqual({
      clientId: mine.clientId,
      name: "Acme Budget",
      redirectUris: [REDIRECT_URI],
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      previousSecretExpiresAt: null,
    });
    expect(JSON.stringify(clients)).not.toMatch(/secret(Hash)?"|obs_/i);
  });

  it("is the owner's only: no session 401, an API key 403, a non-owner 403", async () => {
    const owner = await ownerOf();
    expect((await list({ ...owner, cookie: "" })).status).toBe(401);
    const { key } = await mintApiKey(firstClient(owner));
    const withKey = await handleListClients(
      new Request(`${ISSUER}/api/partner/clients`, { headers: { "X-Api-Key": key } }),
    );
    expect(withKey.status).toBe(403);
    expect(withKey.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope"');
    const stranger = await signedInCookie((await createTestUser()).id);
    expect((await list({ ...owner, cookie: stranger })).status).toBe(403);
  });
});

describe("POST /api/partner/clients", () => {
  const uris = ["https://budget.example/callback", "http://localhost:5173/cb"];

  it("creates an obc_ client of the partner whose secret, shown once, works at the token endpoint", async () => {
    const owner = await ownerOf();
    const response = await create(owner, { name: " Budget web ", redirectUris: uris });
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as {
      clientId: string;
      clientSecret: string;
      name: string;
      redirectUris: string[];
    };
    expect(body).toEqual({
      clientId: expect.stringMatching(/^obc_[A-Za-z0-9]{24}$/) as unknown,
      clientSecret: expect.stringMatching(/^obs_/) as unknown,
      name: "Budget web",
      redirectUris: uris,
    });

    const stored = await db().client.findUniqueOrThrow({ where: { id: body.clientId } });
    expect(stored.partnerId).toBe(firstClient(owner).partnerId);
    expect(stored.secretHash).toBe(hashClientSecret(body.clientSecret));
    const created: TestClient = {
      clientId: body.clientId,
      clientSecret: body.clientSecret,
      redirectUri: "https://budget.example/callback",
      partnerId: stored.partnerId,
    };
    expect(await exchangeStatus(created)).toBe(200);
    expect(await exchangeStatus(withSecret(created, "obs_wrong"))).toBe(401);

    const clients = await listed(owner);
    expect(clients.map((client) => client.clientId)).toEqual([
      firstClient(owner).clientId,
      body.clientId,
    ]);
    expect(JSON.stringify(clients)).not.toContain(body.clientSecret);
  });

  it("refuses a client for a partner without a recipient key when one is required, and creates it once the key is installed", async () => {
    const owner = await ownerOf();
    const before = (await listed(owner)).length;
    setSetting("RECIPIENT_KEY_REQUIRED", "true");
    try {
      const refused = await create(owner, { name: "Budget", redirectUris: uris });
      expect(refused.status).toBe(409);
      const body = (await refused.json()) as { error: string; error_description: string };
      expect(body.error).toBe("recipient_key_required");
      expect(body.error_description).toContain("install the partner's recipient key first");
      expect(await listed(owner)).toHaveLength(before);

      await db().partner.update({
        where: { id: owner.partnerId },
        data: { recipientPublicKey: generateKeyPair().publicKeyRawB64 },
      });
      expect((await create(owner, { name: "Budget", redirectUris: uris })).status).toBe(201);
    } finally {
      setSetting("RECIPIENT_KEY_REQUIRED", "false");
    }
  });

  it("creates for the partner chosen with ?partner= when the owner has several", async () => {
    const owner = await ownerOf(2);
    const second = owner.clients[1]?.partnerId ?? "";
    expect((await create(owner, { name: "x", redirectUris: uris })).status).toBe(400);
    const response = await create(
      owner,
      { name: "Second", redirectUris: uris },
      `?partner=${second}`,
    );
    expect(response.status).toBe(201);
    const { clientId } = (await response.json()) as { clientId: string };
    expect((await db().client.findUniqueOrThrow({ where: { id: clientId } })).partnerId).toBe(
      second,
    );
  });

  it("names every violation and creates nothing", async () => {
    const owner = await ownerOf();
    const violations = await violationsOf(
      await create(owner, { redirectUris: ["http://budget.example/cb"], colour: "red" }),
    );
    expect(violations).toEqual([
      {
        field: "colour",
        code: "unknown_field",
        message: "colour is not a client field (name, redirectUris)",
      },
      { field: "name", code: "required", message: "name is required" },
      {
        field: "redirectUris[0]",
        code: "http_not_loopback",
        message: `"http://budget.example/cb": ${REDIRECT_URI_RULES.http_not_loopback}`,
      },
    ]);
    expect(await violationsOf(await create(owner, { name: "No URIs", redirectUris: [] }))).toEqual([
      { field: "redirectUris", code: "required", message: REDIRECT_URI_RULES.required },
    ]);
    const notJson = await handleCreateClient(
      new Request(`${ISSUER}/api/partner/clients`, {
        method: "POST",
        headers: { Cookie: owner.cookie, Origin: ISSUER, "X-CSRF-Token": owner.csrf },
        body: "name=x",
      }),
    );
    expect(await violationsOf(notJson)).toEqual([
      { field: "body", code: "invalid_body", message: "the body must be a JSON object" },
    ]);
    expect(await listed(owner)).toHaveLength(1);
  });
});

describe("PATCH /api/partner/clients/{clientId}", () => {
  it("renames the client and replaces its redirect URIs, keeping its secret", async () => {
    const owner = await ownerOf();
    const client = firstClient(owner);
    const renamed = await update(owner, client.clientId, { name: "  Budget app  " });
    expect(renamed.status).toBe(200);
    expect(await renamed.json()).toMatchObject({
      clientId: client.clientId,
      name: "Budget app",
      redirectUris: [REDIRECT_URI],
    });

    const uris = ["https://new.example/cb", "http://127.0.0.1:8080/cb"];
    const replaced = await update(owner, client.clientId, { redirectUris: uris });
    expect(await replaced.json()).toMatchObject({ name: "Budget app", redirectUris: uris });
    expect(await listed(owner)).toMatchObject([{ name: "Budget app", redirectUris: uris }]);
    expect(await exchangeStatus({ ...client, redirectUri: "https://new.example/cb" })).toBe(200);
  });

  it("names each redirect URI rule violation and changes nothing", async () => {
    const owner = await ownerOf();
    const client = firstClient(owner);
    const long = `https://budget.example/${"a".repeat(2048)}`;
    const violations = await violationsOf(
      await update(owner, client.clientId, {
        redirectUris: [
          "https://budget.example/ok",
          "http://budget.example/cb",
          "https://budget.example/cb#top",
          "https://user:pass@budget.example/cb",
          "/callback",
          long,
        ],
      }),
    );
    expect(violations).toEqual([
      {
        field: "redirectUris[1]",
        code: "http_not_loopback",
        message: `"http://budget.example/cb": ${REDIRECT_URI_RULES.http_not_loopback}`,
      },
      {
        field: "redirectUris[2]",
        code: "fragment",
        message: `"https://budget.example/cb#top": ${REDIRECT_URI_RULES.fragment}`,
      },
      {
        field: "redirectUris[3]",
        code: "credentials",
        message: `"https://user:pass@budget.example/cb": ${REDIRECT_URI_RULES.credentials}`,
      },
      {
        field: "redirectUris[4]",
        code: "not_absolute",
        message: `"/callback": ${REDIRECT_URI_RULES.not_absolute}`,
      },
      {
        field: "redirectUris[5]",
        code: "too_long",
        message: expect.stringContaining(REDIRECT_URI_RULES.too_long) as unknown as string,
      },
    ]);

    const eleven = Array.from({ length: 11 }, (_, i) => `https://budget.example/cb${i}`);
    const tooMany = await violationsOf(
      await update(owner, client.clientId, { redirectUris: eleven }),
    );
    expect(tooMany).toEqual([
      {
        field: "redirectUris",
        code: "too_many",
        message: `"https://budget.example/cb10": redirect URI number 11 of 11: ${REDIRECT_URI_RULES.too_many}`,
      },
    ]);
    const stored = await db().client.findUniqueOrThrow({ where: { id: client.clientId } });
    expect(stored.redirectUris).toEqual([REDIRECT_URI]);
  });

  it("names name violations: empty, longer than 80 characters, more than one line", async () => {
    const owner = await ownerOf();
    const clientId = firstClient(owner).clientId;
    const cases: [unknown, string, string][] = [
      ["   ", "required", "name must not be empty"],
      ["x".repeat(81), "too_long", "name must be at most 80 characters"],
      ["Budget\napp", "one_line", "name must be one line without control characters"],
      [
        "Budget\u200bapp",
        "invisible",
        "name must not contain invisible characters or text-direction controls (zero-width spaces or joiners, bidi overrides or isolates, soft hyphens)",
      ],
      [42, "invalid_type", "name must be a string"],
    ];
    for (const [name, code, message] of cases) {
      expect(await violationsOf(await update(owner, clientId, { name }))).toEqual([
        { field: "name", code, message },
      ]);
    }
    expect((await update(owner, clientId, { name: "é".repeat(80) })).status).toBe(200);
    const both = await violationsOf(
      await update(owner, clientId, { name: "", redirectUris: ["https://a.example/#"] }),
    );
    expect(both.map((violation) => violation.field)).toEqual(["name", "redirectUris[0]"]);
    const stored = await db().client.findUniqueOrThrow({ where: { id: clientId } });
    expect(stored.name).toBe("é".repeat(80));
    // Stored normalized, like a partner's name: NFKC, one space between words.
    expect((await update(owner, clientId, { name: "  \uff22udget\u00a0\u00a0app " })).status).toBe(
      200,
    );
    const renamed = await db().client.findUniqueOrThrow({ where: { id: clientId } });
    expect(renamed.name).toBe("Budget app");
  });
});

describe("POST /api/partner/clients/{clientId}/rotate-secret (docs/protocol.md#client-authentication)", () => {
  async function rotated(owner: TestOwner, client: TestClient, now?: Date) {
    const response = await rotate(owner, client.clientId, now);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      clientSecret: string;
      previousSecretExpiresAt: string;
    };
    expect(Object.keys(body).sort()).toEqual(["clientSecret", "previousSecretExpiresAt"]);
    return { secret: body.clientSecret, expiresAt: new Date(body.previousSecretExpiresAt) };
  }

  it("shows a new secret once; old and new both work at the token endpoint for 24 hours", async () => {
    const owner = await ownerOf();
    const client = firstClient(owner);
    const before = Date.now();
    const { secret, expiresAt } = await rotated(owner, client);
    const after = Date.now();
    expect(expiresAt.getTime()).toBeGreaterThanOrEqual(before + PREVIOUS_SECRET_GRACE_MS);
    expect(expiresAt.getTime()).toBeLessThanOrEqual(after + PREVIOUS_SECRET_GRACE_MS);
    expect(secret).not.toBe(client.clientSecret);

    expect(await exchangeStatus(withSecret(client, secret))).toBe(200);
    expect(await exchangeStatus(client)).toBe(200);
    expect(await listed(owner)).toMatchObject([
      { clientId: client.clientId, previousSecretExpiresAt: expiresAt.toISOString() },
    ]);
  });

  it("stops accepting the old secret once 24 hours have passed (explicit clock at client authentication)", async () => {
    const owner = await ownerOf();
    const client = firstClient(owner);
    const { secret, expiresAt } = await rotated(owner, client);
    const credentials = (clientSecret: string) => ({
      clientId: client.clientId,
      clientSecret,
      method: "client_secret_basic" as const,
    });
    const justBefore = new Date(expiresAt.getTime() - 1);
    await expect(authenticateClient(credentials(client.clientSecret), justBefore)).resolves.toEqual(
      { id: client.clientId, partnerId: client.partnerId, partnerSuspended: false },
    );
    await expect(authenticateClient(credentials(client.clientSecret), expiresAt)).rejects.toThrow(
      "client authentication failed",
    );
    const dayLater = new Date(expiresAt.getTime() + PREVIOUS_SECRET_GRACE_MS);
    await expect(authenticateClient(credentials(secret), dayLater)).resolves.toMatchObject({
      id: client.clientId,
    });
  });

  it("stops accepting the old secret at the token endpoint once its 24 hours are over", async () => {
    const owner = await ownerOf();
    const client = firstClient(owner);
    // The rotation's clock is set back 24 hours and a minute: its grace is already over.
    const { secret, expiresAt } = await rotated(
      owner,
      client,
      new Date(Date.now() - PREVIOUS_SECRET_GRACE_MS - 60_000),
    );
    expect(expiresAt.getTime()).toBeLessThan(Date.now());
    expect(await exchangeStatus(client)).toBe(401);
    expect(await exchangeStatus(withSecret(client, secret))).toBe(200);

    // And a rotation made now, whose grace end is then moved into the past in the DB.
    const second = await rotated(owner, withSecret(client, secret));
    expect(await exchangeStatus(withSecret(client, secret))).toBe(200);
    await db().client.update({
      where: { id: client.clientId },
      data: { previousSecretExpiresAt: new Date(Date.now() - 1000) },
    });
    expect(await exchangeStatus(withSecret(client, secret))).toBe(401);
    expect(await exchangeStatus(withSecret(client, second.secret))).toBe(200);
  });
});

describe("DELETE /api/partner/clients/{clientId}", () => {
  it("deletes the client; its API keys answer 401 and its secret stops working", async () => {
    const owner = await ownerOf();
    const client = firstClient(owner);
    const { key } = await mintApiKey(client);
    const keyRequest = () =>
      new Request(`${ISSUER}/api/accounts`, { headers: { Authorization: `Bearer ${key}` } });
    expect(await authenticateApiKeyRequest(keyRequest())).not.toBeInstanceOf(Response);

    const response = await remove(owner, client.clientId);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");

    const refused = await authenticateApiKeyRequest(keyRequest());
    expect(refused).toBeInstanceOf(Response);
    expect((refused as Response).status).toBe(401);
    expect(await listed(owner)).toEqual([]);
    await expect(
      authenticateClient({
        clientId: client.clientId,
        clientSecret: client.clientSecret,
        method: "client_secret_basic",
      }),
    ).rejects.toThrow("client authentication failed");
    expect((await remove(owner, client.clientId)).status).toBe(404);
  });
});

describe("another partner's client", () => {
  it("answers 404 to every change and is never touched", async () => {
    const owner = await ownerOf();
    const theirs = await createTestClient();
    const house = await createTestClient({ house: true });
    const before = await db().client.findUniqueOrThrow({ where: { id: theirs.clientId } });
    for (const client of [theirs, house]) {
      const responses = [
        await update(owner, client.clientId, { name: "Mine now" }),
        await update(owner, client.clientId, { name: "" }),
        await rotate(owner, client.clientId),
        await remove(owner, client.clientId),
      ];
      for (const response of responses) {
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({
          error: "not_found",
          error_description: "no such client",
        });
      }
    }
    expect(await db().client.findUniqueOrThrow({ where: { id: theirs.clientId } })).toEqual(before);
    expect(await exchangeStatus(theirs)).toBe(200);
    expect(await exchangeStatus(house)).toBe(200);
    expect((await update(owner, "obc_no_such_client_here", { name: "x" })).status).toBe(404);
  });

  it("answers 404 for a client of the owner's other partner when ?partner= picks another", async () => {
    const owner = await ownerOf(2);
    const [first, second] = owner.clients;
    const response = await update(
      owner,
      first?.clientId ?? "",
      { name: "Moved" },
      `?partner=${second?.partnerId ?? ""}`,
    );
    expect(response.status).toBe(404);
  });
});

describe("CSRF (owner-session mutations)", () => {
  it("refuses every change without the session's CSRF token or from another origin", async () => {
    const owner = await ownerOf();
    const client = firstClient(owner);
    const forged = { ...owner, csrf: "" };
    const attempts = (who: TestOwner, headers: Record<string, string> = {}) => [
      handleCreateClient(
        ownerRequest(
          who,
          "POST",
          "/api/partner/clients",
          { name: "x", redirectUris: [REDIRECT_URI] },
          headers,
        ),
      ),
      handleUpdateClient(
        ownerRequest(
          who,
          "PATCH",
          `/api/partner/clients/${client.clientId}`,
          { name: "x" },
          headers,
        ),
        client.clientId,
      ),
      handleRotateClientSecret(
        ownerRequest(
          who,
          "POST",
          `/api/partner/clients/${client.clientId}/rotate-secret`,
          undefined,
          headers,
        ),
        client.clientId,
      ),
      handleDeleteClient(
        ownerRequest(who, "DELETE", `/api/partner/clients/${client.clientId}`, undefined, headers),
        client.clientId,
      ),
    ];
    for (const response of await Promise.all([
      ...attempts(forged),
      ...attempts(owner, { Origin: "https://evil.example" }),
    ])) {
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: string }).error).toBe("csrf");
    }
    const stored = await db().client.findUniqueOrThrow({ where: { id: client.clientId } });
    expect(stored).toMatchObject({ name: "Acme Budget", previousSecretHash: null });
    expect(await listed(owner)).toHaveLength(1);
  });
});
