import { describe, expect, it } from "vitest";
import * as accountsRoute from "@/app/api/accounts/route";
import { ensureTenant } from "../banking/tenants";
import { generateKeyPair, openJson } from "../crypto/envelope";
import { db } from "../db/client";
import { handleTokenRequest } from "../oauth/token";
import { connectBank, partnerWithRecipientKey } from "../../test/bank-data";
import {
  createTestClient,
  createTestUser,
  ISSUER,
  issueCodeForUser,
  newVerifier,
  signedInCookie,
  startTestFlow,
  tokenRequest,
  type TestClient,
} from "../../test/oauth-fixtures";
import { handleConsentApprove } from "./consent";
import { csrfToken, type FlowAction } from "./csrf";
import { handleKeyRegistration } from "./key-setup";
import { handleStartOver } from "./start-over";
import { eventsFrom, expectNoSecrets, fromAddress, uniqueAddress } from "../../test/audit";
import { keyProofFor } from "../../test/key-proof";

/**
 * Starting over with a new key (docs/key-model.md): the user's public key is
 * replaced, everything sealed to the old one is deleted, the API keys reading
 * it are revoked, and what is connected afterwards is sealed to the new key.
 */

type Keys = ReturnType<typeof generateKeyPair>;
const EVIL = "https://evil.example";

async function userWithKey() {
  const keys = generateKeyPair();
  const user = await db().user.update({
    where: { id: (await createTestUser()).id },
    data: { publicKey: keys.publicKeyRawB64, publicKeyAt: new Date() },
  });
  return { user, keys };
}

/** The user went through `client`'s flow: a tenant, a connected bank, an API key and a code not yet exchanged. */
async function connectedThrough(client: TestClient, userId: string) {
  const verifier = newVerifier();
  const { code } = await issueCodeForUser(client, verifier, userId);
  const token = await handleTokenRequest(tokenRequest(client, code, verifier));
  const { access_token: apiKey } = (await token.json()) as { access_token: string };
  const tenant = await db().tenant.findFirstOrThrow({
    where: { userId, partnerId: client.partnerId },
  });
  await connectBank(tenant.id, tenant.sealingKey ?? "");
  const pendingVerifier = newVerifier();
  const pending = await issueCodeForUser(client, pendingVerifier, userId);
  return { tenant, apiKey, pending: { code: pending.code, verifier: pendingVerifier } };
}

/** A bank connected again, as the bank callback does it: the tenant settled with the user as they are now. */
async function reconnect(client: TestClient, userId: string) {
  const person = await db().user.findUniqueOrThrow({ where: { id: userId } });
  const partner = await db().partner.findUniqueOrThrow({ where: { id: client.partnerId ?? "" } });
  const { id } = await db().$transaction((tx) => ensureTenant(tx, { user: person, partner }));
  const tenant = await db().tenant.findUniqueOrThrow({ where: { id } });
  await connectBank(tenant.id, tenant.sealingKey ?? "");
  return tenant;
}

const readAccounts = (apiKey: string) =>
  accountsRoute.GET(
    new Request(`${ISSUER}/api/accounts`, { headers: { "X-Api-Key": apiKey } }),
    {},
  );

/** A signed-in browser on a new flow of `client`, at key setup (or another step). */
async function browserAt(
  client: TestClient,
  userId: string,
  step: "key_setup" | "consent" = "key_setup",
) {
  const { flowId, setCookie } = await startTestFlow(client);
  await db().flow.update({ where: { id: flowId }, data: { userId, step } });
  const flow = await db().flow.findUniqueOrThrow({ where: { id: flowId } });
  const cookie = `${setCookie.split(";")[0] ?? ""}; ${await signedInCookie(userId)}`;
  return { flow, cookie };
}

function post(
  path: string,
  handler: (request: Request) => Promise<Response>,
  cookie: string,
  body: unknown,
  origin: string | null = ISSUER,
) {
  return handler(
    new Request(`${ISSUER}${path}`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Cookie: cookie,
        ...(origin ? { Origin: origin } : {}),
      },
      body: JSON.stringify(body),
    }),
  );
}

const startOver = (cookie: string, body: unknown, origin?: string | null) =>
  post("/setup/start-over", handleStartOver, cookie, body, origin);

const token = (flow: { id: string; csrfSecret: string }, action: FlowAction) =>
  csrfToken(flow, action);

async function dataOf(tenantId: string) {
  const [connections, accounts, balances, transactions] = await Promise.all([
    db().connection.count({ where: { tenantId } }),
    db().account.count({ where: { tenantId } }),
    db().balance.count({ where: { account: { tenantId } } }),
    db().transaction.count({ where: { account: { tenantId } } }),
  ]);
  return { connections, accounts, balances, transactions };
}

describe("starting over with a new key", () => {
  it("deletes everything sealed to the old key under every partner, revokes the keys reading it, and leaves partner-sealed data and other users alone", async () => {
    const { user, keys: old } = await userWithKey();
    const [first, second] = [await createTestClient(), await createTestClient()];
    const a = await connectedThrough(first, user.id);
    const b = await connectedThrough(second, user.id);
    expect([a.tenant.sealingKeyKind, b.tenant.sealingKeyKind]).toEqual(["user", "user"]);
    expect((await dataOf(a.tenant.id)).transactions).toBeGreaterThan(0);

    // Under a partner with a recipient key the data is the partner's to open.
    const { client: keyed } = await partnerWithRecipientKey();
    const kept = await connectedThrough(keyed, user.id);
    expect(kept.tenant.sealingKeyKind).toBe("partner");
    // Someone else's data under the same partner.
    const other = await userWithKey();
    const untouched = await connectedThrough(first, other.user.id);
    const before = {
      kept: await dataOf(kept.tenant.id),
      untouched: await dataOf(untouched.tenant.id),
    };

    const fresh = generateKeyPair();
    const { flow, cookie } = await browserAt(first, user.id);
    const answer = await startOver(cookie, {
      csrf: token(flow, "start-over"),
      replaces: old.publicKeyRawB64,
      publicKey: fresh.publicKeyRawB64,
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    // The flow goes on at the bank step.
    expect(await answer.json()).toEqual({ next: "/banks" });
    expect((await db().flow.findUniqueOrThrow({ where: { id: flow.id } })).step).toBe("banks");

    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).publicKey).toBe(
      fresh.publicKeyRawB64,
    );
    for (const gone of [a, b]) {
      expect(await dataOf(gone.tenant.id)).toEqual({
        connections: 0,
        accounts: 0,
        balances: 0,
        transactions: 0,
      });
      expect(await db().tenant.findUniqueOrThrow({ where: { id: gone.tenant.id } })).toMatchObject({
        sealingKey: null,
        sealingKeyKind: null,
      });
      expect((await readAccounts(gone.apiKey)).status).toBe(401);
      const code = await db().authorizationCode.findMany({ where: { tenantId: gone.tenant.id } });
      expect(code.every((row) => row.consumedAt !== null)).toBe(true);
    }
    const exchanged = await handleTokenRequest(
      tokenRequest(first, a.pending.code, a.pending.verifier),
    );
    expect(exchanged.status).toBe(400);
    expect(await exchanged.json()).toMatchObject({ error: "invalid_grant" });
    // The partner-sealed tenant's code still works.
    const keptCode = await handleTokenRequest(
      tokenRequest(keyed, kept.pending.code, kept.pending.verifier),
    );
    expect(keptCode.status).toBe(200);

    expect(await dataOf(kept.tenant.id)).toEqual(before.kept);
    expect((await readAccounts(kept.apiKey)).status).toBe(200);
    expect(await dataOf(untouched.tenant.id)).toEqual(before.untouched);
    expect((await readAccounts(untouched.apiKey)).status).toBe(200);
  });

  it("records the replacement and each revoked key in the audit log, with the client address and no key", async () => {
    const { user, keys: old } = await userWithKey();
    const client = await createTestClient();
    const connected = await connectedThrough(client, user.id);
    const fresh = generateKeyPair();
    const { flow, cookie } = await browserAt(client, user.id);
    const address = uniqueAddress();
    const answer = await handleStartOver(
      new Request(`${ISSUER}/setup/start-over`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Cookie: cookie,
          Origin: ISSUER,
          ...fromAddress(address),
        },
        body: JSON.stringify({
          csrf: token(flow, "start-over"),
          replaces: old.publicKeyRawB64,
          publicKey: fresh.publicKeyRawB64,
        }),
      }),
    );
    expect(answer.status).toBe(200);
    const events = await eventsFrom(address);
    expect(events.map((event) => event.type)).toEqual(["api_key.revoked", "user.key_replaced"]);
    expect(events[0]).toMatchObject({
      partnerId: client.partnerId,
      clientId: client.clientId,
      userId: user.id,
      subject: connected.apiKey.slice(0, 12),
      details: { reason: "key_start_over" },
    });
    expect(events[1]).toMatchObject({
      actorKind: "user",
      actorId: user.id,
      partnerId: null,
      details: { tenants: 1, connections: 1, apiKeysRevoked: 1 },
    });
    expectNoSecrets(events, [connected.apiKey, old.publicKeyRawB64, fresh.publicKeyRawB64]);
  });

  it("seals what is connected afterwards to the new key: it opens with the new key and not with the old", async () => {
    const { user, keys: old } = await userWithKey();
    const client = await createTestClient();
    const { tenant } = await connectedThrough(client, user.id);
    const fresh = generateKeyPair();
    const { flow, cookie } = await browserAt(client, user.id);
    const answer = await startOver(cookie, {
      csrf: token(flow, "start-over"),
      replaces: old.publicKeyRawB64,
      publicKey: fresh.publicKeyRawB64,
    });
    expect(answer.status).toBe(200);

    const resealed = await reconnect(client, user.id);
    expect(resealed).toMatchObject({
      id: tenant.id,
      sealingKey: fresh.publicKeyRawB64,
      sealingKeyKind: "user",
    });

    const accounts = await db().account.findMany({ where: { tenantId: tenant.id } });
    expect(accounts.length).toBeGreaterThan(0);
    for (const account of accounts) {
      expect(openJson<{ iban: string }>(fresh.privateKeyPkcs8B64, account.enc ?? "").iban).toMatch(
        /^[A-Z]{2}\d{2}/,
      );
      expect(() => openJson(old.privateKeyPkcs8B64, account.enc ?? "")).toThrow();
    }
    // Data stored with the lost key after starting over is refused, not written.
    await expect(connectBank(tenant.id, old.publicKeyRawB64)).rejects.toThrow(
      "the tenant's sealing key changed",
    );
  });

  it("is refused without the flow, from another Origin, without the right token or against a key that is no longer registered, changing nothing", async () => {
    const { user, keys: old } = await userWithKey();
    const client = await createTestClient();
    const { tenant, apiKey } = await connectedThrough(client, user.id);
    const before = await dataOf(tenant.id);
    const { flow, cookie } = await browserAt(client, user.id);
    const fresh = generateKeyPair();
    const body = (csrf: string | undefined, replaces = old.publicKeyRawB64) => ({
      csrf,
      replaces,
      publicKey: fresh.publicKeyRawB64,
    });
    const signedInOnly = await signedInCookie(user.id);
    const attempts: [unknown, string, string | null, number][] = [
      [body(token(flow, "start-over")), signedInOnly, ISSUER, 401],
      [body(token(flow, "start-over")), cookie, EVIL, 403],
      [body(token(flow, "start-over")), cookie, null, 403],
      [body(undefined), cookie, ISSUER, 403],
      [body("forged"), cookie, ISSUER, 403],
      [body(token(flow, "key-setup")), cookie, ISSUER, 403],
      [body(token(flow, "start-over"), generateKeyPair().publicKeyRawB64), cookie, ISSUER, 409],
      [{ ...body(token(flow, "start-over")), publicKey: "AAAA" }, cookie, ISSUER, 400],
      [body(token(flow, "start-over"), fresh.publicKeyRawB64), cookie, ISSUER, 400],
      ["[]", cookie, ISSUER, 400],
    ];
    for (const [payload, cookies, origin, status] of attempts) {
      const answer = await startOver(cookies, payload, origin);
      expect(answer.status).toBe(status);
      expect(await answer.json()).toHaveProperty("error");
    }
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).publicKey).toBe(
      old.publicKeyRawB64,
    );
    expect(await dataOf(tenant.id)).toEqual(before);
    expect((await readAccounts(apiKey)).status).toBe(200);
  });

  it("a retry whose answer was lost answers the same; a stale screen cannot replace the new key", async () => {
    const { user, keys: old } = await userWithKey();
    const client = await createTestClient();
    const { flow, cookie } = await browserAt(client, user.id);
    const fresh = generateKeyPair();
    const request = {
      csrf: token(flow, "start-over"),
      replaces: old.publicKeyRawB64,
      publicKey: fresh.publicKeyRawB64,
    };
    expect((await startOver(cookie, request)).status).toBe(200);
    const again = await startOver(cookie, request);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ next: "/banks" });

    const stale = await startOver(cookie, {
      ...request,
      publicKey: generateKeyPair().publicKeyRawB64,
    });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toEqual({ error: "key_changed" });
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).publicKey).toBe(
      fresh.publicKeyRawB64,
    );
  });

  it("a consent screen left open from before cannot relay the old key", async () => {
    const { user, keys: old } = await userWithKey();
    const client = await createTestClient();
    await connectedThrough(client, user.id);
    const fresh = generateKeyPair();
    const setup = await browserAt(client, user.id);
    await startOver(setup.cookie, {
      csrf: token(setup.flow, "start-over"),
      replaces: old.publicKeyRawB64,
      publicKey: fresh.publicKeyRawB64,
    });
    await reconnect(client, user.id);

    const consent = await browserAt(client, user.id, "consent");
    const approve = async (publicKey: string) =>
      post("/consent/approve", handleConsentApprove, consent.cookie, {
        csrf: token(consent.flow, "approve"),
        publicKey,
        proof: await keyProofFor(consent.flow, consent.cookie, fresh.privateKeyPkcs8B64),
      });
    const refused = await approve(old.publicKeyRawB64);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ error: "key_changed" });
    expect(await db().authorizationCode.count({ where: { flowId: consent.flow.id } })).toBe(0);
    expect((await approve(fresh.publicKeyRawB64)).status).toBe(200);
  });
});

describe("registering the key (setup resumed after a reload)", () => {
  it("registers once; the same key again answers where to go, another key is refused", async () => {
    const user = await createTestUser();
    const client = await createTestClient();
    const { flow, cookie } = await browserAt(client, user.id);
    const keys: Keys = generateKeyPair();
    const register = (publicKey: string) =>
      post("/setup/key", handleKeyRegistration, cookie, {
        csrf: token(flow, "key-setup"),
        publicKey,
      });
    const first = await register(keys.publicKeyRawB64);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ next: "/banks" });
    const registeredAt = (await db().user.findUniqueOrThrow({ where: { id: user.id } }))
      .publicKeyAt;

    const resumed = await register(keys.publicKeyRawB64);
    expect(resumed.status).toBe(200);
    expect(await resumed.json()).toEqual({ next: "/banks" });
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).publicKeyAt).toEqual(
      registeredAt,
    );

    const other = await register(generateKeyPair().publicKeyRawB64);
    expect(other.status).toBe(409);
    expect(await other.json()).toEqual({ error: "key_mismatch" });
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).publicKey).toBe(
      keys.publicKeyRawB64,
    );
  });
});
