import { describe, expect, it } from "vitest";
import { findSessionUser, type SignedInUser } from "../auth/sessions";
import { generateKeyPair } from "../crypto/envelope";
import { db } from "../db/client";
import { authenticateApiKeyRequest } from "../oauth/bearer";
import { flushKeyUses, pendingKeyUses } from "../keys/last-use";
import { connectedPartnerUser } from "../../test/bank-data";
import { ISSUER, signedInCookie, uniqueEmail } from "../../test/oauth-fixtures";
import {
  handleAccountStartOver,
  handleDeleteEverything,
  handleEndAccess,
  handleRemoveBank,
} from "./handlers";
import { loadAccountOverview } from "./overview";
import { accountCsrfToken, type AccountAction as AnyAccountAction } from "./session";

/** The POST actions; the passkey actions (other methods and paths) are tested in lib/passkeys. */
// Passkeys and personal keys have tests of their own (lib/passkeys, test/security/personal-keys-panel.test.ts).
type AccountAction = Exclude<
  AnyAccountAction,
  "add-passkey" | "remove-passkey" | "create-key" | "revoke-key"
>;

/** A person who granted a partner access and connected a bank, signed in in a browser. */
async function person() {
  const granted = await connectedPartnerUser();
  const tenant = await db().tenant.findUniqueOrThrow({ where: { id: granted.tenantId } });
  const cookie = await signedInCookie(tenant.userId);
  const session = (await findSessionUser(cookie.slice(cookie.indexOf("=") + 1))) as SignedInUser;
  const connection = await db().connection.findFirstOrThrow({
    where: { tenantId: granted.tenantId },
  });
  return {
    ...granted,
    upstreamSessionId: granted.session.sessionId,
    userId: tenant.userId,
    partnerId: granted.client.partnerId ?? "",
    connectionId: connection.id,
    cookie,
    session,
  };
}

const PATHS: Record<AccountAction, string> = {
  "end-access": "/account/access/end",
  "remove-bank": "/account/banks/remove",
  "start-over": "/account/key/start-over",
  delete: "/account/delete",
};

const HANDLERS: Record<AccountAction, (request: Request) => Promise<Response>> = {
  "end-access": handleEndAccess,
  "remove-bank": handleRemoveBank,
  "start-over": handleAccountStartOver,
  delete: handleDeleteEverything,
};

function post(
  action: AccountAction,
  body: Record<string, unknown>,
  headers: Record<string, string | null> = {},
): Promise<Response> {
  const merged: Record<string, string> = { "Content-Type": "application/json", Origin: ISSUER };
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return HANDLERS[action](
    new Request(`${ISSUER}${PATHS[action]}`, {
      method: "POST",
      headers: merged,
      body: JSON.stringify(body),
    }),
  );
}

const keyWorks = async (key: string) =>
  !(
    (await authenticateApiKeyRequest(
      new Request(`${ISSUER}/api/accounts`, { headers: { Authorization: `Bearer ${key}` } }),
    )) instanceof Response
  );

const rowsOfConnection = async (connectionId: string) => {
  const accounts = await db().account.findMany({ where: { connectionId }, select: { id: true } });
  const accountIds = accounts.map((account) => account.id);
  return {
    connections: await db().connection.count({ where: { id: connectionId } }),
    accounts: accounts.length,
    balances: await db().balance.count({ where: { accountId: { in: accountIds } } }),
    transactions: await db().transaction.count({ where: { accountId: { in: accountIds } } }),
  };
};

describe("My access: applications with access", () => {
  it("lists the partner with its live key, and ending access answers 401 to the key at once", async () => {
    const alice = await person();
    const before = await loadAccountOverview(alice.userId);
    expect(before.access.map((item) => item.partnerId)).toEqual([alice.partnerId]);
    expect(before.access[0]?.keys).toHaveLength(1);
    expect(await keyWorks(alice.key)).toBe(true);

    const response = await post(
      "end-access",
      { csrf: accountCsrfToken(alice.session, "end-access"), partnerId: alice.partnerId },
      { cookie: alice.cookie },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, revoked: 1 });
    expect(await keyWorks(alice.key)).toBe(false);
    expect((await loadAccountOverview(alice.userId)).access).toEqual([]);
    const event = await db().auditEvent.findFirstOrThrow({
      where: { type: "api_key.revoked", userId: alice.userId },
    });
    expect(event).toMatchObject({
      actorKind: "user",
      actorId: alice.userId,
      partnerId: alice.partnerId,
      details: { reason: "user_ended_access" },
    });
  });

  it("records a key's last use in one batched write, not on the request's path", async () => {
    const alice = await person();
    await flushKeyUses();
    expect(await keyWorks(alice.key)).toBe(true);
    expect(await keyWorks(alice.key)).toBe(true);
    const row = () => db().apiKey.findFirstOrThrow({ where: { tenantId: alice.tenantId } });
    expect((await row()).lastUsedAt).toBeNull();
    expect(pendingKeyUses()).toBeGreaterThanOrEqual(1);
    const at = new Date();
    expect(await flushKeyUses(at)).toBeGreaterThanOrEqual(1);
    expect(pendingKeyUses()).toBe(0);
    expect((await row()).lastUsedAt).toEqual(at);
    const shown = await loadAccountOverview(alice.userId);
    expect(shown.access[0]?.keys[0]?.lastUsedAt).toBe(at.toISOString());
  });
});

describe("My access: connected banks", () => {
  it("removes a connection with every account, balance and transaction, closing the upstream session", async () => {
    const alice = await person();
    const before = await rowsOfConnection(alice.connectionId);
    expect(before.accounts).toBeGreaterThan(0);
    expect(before.transactions).toBeGreaterThan(0);

    const wrong = await post(
      "remove-bank",
      {
        csrf: accountCsrfToken(alice.session, "remove-bank"),
        connectionId: alice.connectionId,
        upstreamSessionId: "not-the-session",
      },
      { cookie: alice.cookie },
    );
    expect(wrong.status).toBe(400);
    expect(await rowsOfConnection(alice.connectionId)).toEqual(before);

    const response = await post(
      "remove-bank",
      {
        csrf: accountCsrfToken(alice.session, "remove-bank"),
        connectionId: alice.connectionId,
        upstreamSessionId: alice.upstreamSessionId,
      },
      { cookie: alice.cookie },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, upstreamClosed: true });
    expect(await rowsOfConnection(alice.connectionId)).toEqual({
      connections: 0,
      accounts: 0,
      balances: 0,
      transactions: 0,
    });
  });
});

describe("My access: your key", () => {
  it("starting over replaces the key the page showed and ends what was sealed to it", async () => {
    const alice = await person();
    const old = generateKeyPair().publicKeyRawB64;
    const next = generateKeyPair().publicKeyRawB64;
    await db().user.update({ where: { id: alice.userId }, data: { publicKey: old } });
    await db().tenant.update({
      where: { id: alice.tenantId },
      data: { sealingKey: old, sealingKeyKind: "user" },
    });
    const csrf = accountCsrfToken(alice.session, "start-over");
    const stale = await post(
      "start-over",
      { csrf, replaces: next, publicKey: generateKeyPair().publicKeyRawB64 },
      { cookie: alice.cookie },
    );
    expect(stale.status).toBe(409);
    const response = await post(
      "start-over",
      { csrf, replaces: old, publicKey: next },
      { cookie: alice.cookie },
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, next: "/account" });
    expect((await db().user.findUniqueOrThrow({ where: { id: alice.userId } })).publicKey).toBe(
      next,
    );
    expect(await keyWorks(alice.key)).toBe(false);
    expect((await rowsOfConnection(alice.connectionId)).connections).toBe(0);
  });
});

describe("My access: delete everything", () => {
  it("needs the typed address, then deletes the person's data and keys; the address is new again", async () => {
    const alice = await person();
    const csrf = accountCsrfToken(alice.session, "delete");
    const mismatch = await post(
      "delete",
      { csrf, confirm: "someone@else.example" },
      {
        cookie: alice.cookie,
      },
    );
    expect(mismatch.status).toBe(400);
    expect(await keyWorks(alice.key)).toBe(true);

    const response = await post(
      "delete",
      { csrf, confirm: alice.session.email.toUpperCase() },
      {
        cookie: alice.cookie,
      },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    expect(await keyWorks(alice.key)).toBe(false);
    expect(await db().user.findUnique({ where: { email: alice.session.email } })).toBeNull();
    expect(await db().tenant.count({ where: { userId: alice.userId } })).toBe(0);
    expect(await db().apiKey.count({ where: { tenantId: alice.tenantId } })).toBe(0);
    expect(await rowsOfConnection(alice.connectionId)).toMatchObject({
      connections: 0,
      accounts: 0,
    });
  });
});

describe("My access: every action is the signed-in person's own", () => {
  it("refuses another person's ids on every action (IDOR) and leaves their rows alone", async () => {
    const [alice, bob] = await Promise.all([person(), person()]);
    const endBob = await post(
      "end-access",
      { csrf: accountCsrfToken(alice.session, "end-access"), partnerId: bob.partnerId },
      { cookie: alice.cookie },
    );
    expect(endBob.status).toBe(404);
    expect(await keyWorks(bob.key)).toBe(true);

    const removeBob = await post(
      "remove-bank",
      { csrf: accountCsrfToken(alice.session, "remove-bank"), connectionId: bob.connectionId },
      { cookie: alice.cookie },
    );
    expect(removeBob.status).toBe(404);
    expect((await rowsOfConnection(bob.connectionId)).connections).toBe(1);

    // Bob's typed address does not delete Bob, and Alice's deletion leaves Bob whole.
    const deleteAsBob = await post(
      "delete",
      { csrf: accountCsrfToken(alice.session, "delete"), confirm: bob.session.email },
      { cookie: alice.cookie },
    );
    expect(deleteAsBob.status).toBe(400);
    const deleteAlice = await post(
      "delete",
      { csrf: accountCsrfToken(alice.session, "delete"), confirm: alice.session.email },
      { cookie: alice.cookie },
    );
    expect(deleteAlice.status).toBe(200);
    expect(await keyWorks(bob.key)).toBe(true);
    expect((await rowsOfConnection(bob.connectionId)).connections).toBe(1);
    expect(await loadAccountOverview(bob.userId)).toMatchObject({
      access: [{ partnerId: bob.partnerId }],
    });
  });

  it("refuses every action without the same Origin, the session, or the action's CSRF token", async () => {
    const [alice, bob] = await Promise.all([person(), person()]);
    const stranger = uniqueEmail("stranger");
    const bodies: Record<AccountAction, Record<string, unknown>> = {
      "end-access": { partnerId: alice.partnerId },
      "remove-bank": { connectionId: alice.connectionId },
      "start-over": { replaces: alice.keys.publicKeyRawB64, publicKey: bob.keys.publicKeyRawB64 },
      delete: { confirm: alice.session.email },
    };
    for (const action of Object.keys(PATHS) as AccountAction[]) {
      const csrf = accountCsrfToken(alice.session, action);
      const other = action === "delete" ? "end-access" : "delete";
      const cases: [string, Promise<Response>, number][] = [
        [
          "no Origin",
          post(action, { csrf, ...bodies[action] }, { cookie: alice.cookie, Origin: null }),
          403,
        ],
        [
          "another site",
          post(
            action,
            { csrf, ...bodies[action] },
            { cookie: alice.cookie, Origin: "https://evil.example" },
          ),
          403,
        ],
        ["no session", post(action, { csrf, ...bodies[action] }), 401],
        ["no token", post(action, bodies[action], { cookie: alice.cookie }), 403],
        [
          "another action's token",
          post(
            action,
            { csrf: accountCsrfToken(alice.session, other), ...bodies[action] },
            { cookie: alice.cookie },
          ),
          403,
        ],
        [
          "another session's token",
          post(
            action,
            { csrf: accountCsrfToken(bob.session, action), ...bodies[action] },
            { cookie: alice.cookie },
          ),
          403,
        ],
        [
          "a stranger's token",
          post(action, { csrf: stranger, ...bodies[action] }, { cookie: alice.cookie }),
          403,
        ],
      ];
      for (const [label, answer, status] of cases) {
        const response = await answer;
        expect({ action, label, status: response.status }).toEqual({ action, label, status });
        expect((await response.json()) as unknown).toHaveProperty("error");
      }
    }
    // Nothing happened to Alice meanwhile.
    expect(await keyWorks(alice.key)).toBe(true);
    expect((await rowsOfConnection(alice.connectionId)).connections).toBe(1);
  });
});
