import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as createRoute from "../../app/(flow)/account/keys/route";
import * as revokeRoute from "../../app/(flow)/account/keys/revoke/route";
import * as userinfoRoute from "../../app/oauth/userinfo/route";
import { MAX_PERSONAL_KEYS } from "../../lib/account/personal-keys";
import { accountCsrfToken } from "../../lib/account/session";
import { findSessionUser, FRESH_SIGN_IN_SECONDS, type SignedInUser } from "../../lib/auth/sessions";
import { generateKeyPair } from "../../lib/crypto/envelope";
import { keyedHash } from "../../lib/crypto/keyed-hash";
import { db } from "../../lib/db/client";
import { hashApiKey } from "../../lib/keys/api-keys";
import {
  COMMAND_LINE_CLIENT,
  issuePersonalKey,
  listPersonalKeys,
  PERSONAL_KEYS_CLIENT,
} from "../../lib/oauth/personal-keys";
import {
  createTestUser,
  ISSUER,
  mintApiKey,
  createTestClient,
  signedInCookie,
} from "../oauth-fixtures";
import { startRouteServer, type RouteServer } from "../route-server";

/**
 * "Your own keys" on My access (docs/own-data.md): making a personal key by
 * hand and revoking one are "My access" actions: same Origin, their own CSRF
 * token, a fresh sign-in, and only the person's own personal keys. Every
 * request goes over HTTP to the routes as the service serves them.
 */

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({
    "/account/keys": createRoute,
    "/account/keys/revoke": revokeRoute,
    "/oauth/userinfo": userinfoRoute,
  });
});
afterAll(() => server.close());

const cookieToken = (cookie: string) => cookie.slice(cookie.indexOf("=") + 1);

async function person(withKey = true) {
  const created = await createTestUser();
  const user = withKey
    ? await db().user.update({
        where: { id: created.id },
        data: { publicKey: generateKeyPair().publicKeyRawB64, publicKeyAt: new Date() },
      })
    : created;
  const cookie = await signedInCookie(user.id);
  const session = (await findSessionUser(cookieToken(cookie))) as SignedInUser;
  return { user, cookie, session };
}

function post(
  path: "/account/keys" | "/account/keys/revoke",
  body: Record<string, unknown>,
  headers: Record<string, string | undefined>,
) {
  const sent: Record<string, string> = {
    "Content-Type": "application/json",
    "X-Forwarded-For": `198.51.100.${randomInt(1, 255)}`,
  };
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
  return fetch(`${server.origin}${path}`, {
    method: "POST",
    headers: sent,
    body: JSON.stringify(body),
  });
}

const make = (alice: Awaited<ReturnType<typeof person>>, name: string) =>
  post(
    "/account/keys",
    { csrf: accountCsrfToken(alice.session, "create-key"), name },
    { Origin: ISSUER, Cookie: alice.cookie },
  );

const revoke = (alice: Awaited<ReturnType<typeof person>>, id: string) =>
  post(
    "/account/keys/revoke",
    { csrf: accountCsrfToken(alice.session, "revoke-key"), id },
    { Origin: ISSUER, Cookie: alice.cookie },
  );

const userinfo = (key: string) =>
  fetch(`${server.origin}/oauth/userinfo`, { headers: { Authorization: `Bearer ${key}` } });

async function ageSession(cookie: string, seconds: number) {
  await db().browserSession.updateMany({
    where: { idHash: keyedHash("browser-session", cookieToken(cookie)) },
    data: { createdAt: new Date(Date.now() - seconds * 1000) },
  });
}

describe("personal keys on My access", () => {
  it("makes a named personal key whose value is shown once and which reads as the person's own", async () => {
    const alice = await person();
    const response = await make(alice, "  Budget   sheet ");
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toContain("no-store");
    const { key } = (await response.json()) as {
      key: { id: string; name: string; apiKey: string; prefix: string };
    };
    expect(key.name).toBe("Budget sheet");
    expect(key.prefix).toBe(key.apiKey.slice(0, 12));
    expect(await (await userinfo(key.apiKey)).json()).toMatchObject({
      partner_id: null,
      client_id: PERSONAL_KEYS_CLIENT.id,
      sub: `user:${alice.user.id}`,
    });
    const listed = await listPersonalKeys(alice.user.id);
    expect(listed.map(({ id, name, prefix }) => ({ id, name, prefix }))).toEqual([
      { id: key.id, name: "Budget sheet", prefix: key.prefix },
    ]);
    // The value itself is never stored.
    const stored = await db().apiKey.findUniqueOrThrow({ where: { id: key.id } });
    expect(stored.keyHash).toBe(hashApiKey(key.apiKey));
    expect(JSON.stringify(stored)).not.toContain(key.apiKey);
  });

  it("revokes the person's own key at once, and never another person's or an app's", async () => {
    const alice = await person();
    const bob = await person();
    const cli = await db().$transaction((tx) =>
      issuePersonalKey(tx, {
        userId: alice.user.id,
        client: COMMAND_LINE_CLIENT,
        name: null,
        clientIp: null,
      }),
    );
    const bobs = await db().$transaction((tx) =>
      issuePersonalKey(tx, {
        userId: bob.user.id,
        client: PERSONAL_KEYS_CLIENT,
        name: "Bob's",
        clientIp: null,
      }),
    );
    const partnerKey = await mintApiKey(await createTestClient());
    const partnerRow = await db().apiKey.findUniqueOrThrow({
      where: { keyHash: hashApiKey(partnerKey.key) },
    });

    for (const id of [
      bobs.id,
      partnerRow.id,
      "not-an-id",
      "00000000-0000-4000-8000-000000000000",
    ]) {
      const refused = await revoke(alice, id);
      expect(refused.status, id).toBe(id === "not-an-id" ? 400 : 404);
    }
    expect((await userinfo(bobs.apiKey)).status).toBe(200);
    expect((await userinfo(partnerKey.key)).status).toBe(200);

    expect((await userinfo(cli.apiKey)).status).toBe(200);
    const done = await revoke(alice, cli.id);
    expect(done.status).toBe(200);
    expect((await userinfo(cli.apiKey)).status).toBe(401);
    expect(await listPersonalKeys(alice.user.id)).toEqual([]);
    const event = await db().auditEvent.findFirstOrThrow({
      where: { type: "api_key.revoked", subject: cli.prefix },
    });
    expect(event).toMatchObject({
      actorKind: "user",
      actorId: alice.user.id,
      partnerId: null,
      details: { reason: "user_revoked_own_key" },
    });
    // Revoked once: again is not found.
    expect((await revoke(alice, cli.id)).status).toBe(404);
  });

  it("needs same Origin, the action's own token and a fresh sign-in", async () => {
    const alice = await person();
    const body = { csrf: accountCsrfToken(alice.session, "create-key"), name: "Script" };
    const foreign = await post("/account/keys", body, {
      Origin: "https://evil.example",
      Cookie: alice.cookie,
    });
    expect(foreign.status).toBe(403);
    const otherToken = await post(
      "/account/keys",
      { csrf: accountCsrfToken(alice.session, "revoke-key"), name: "Script" },
      { Origin: ISSUER, Cookie: alice.cookie },
    );
    expect(otherToken.status).toBe(403);
    const signedOut = await post("/account/keys", body, { Origin: ISSUER });
    expect(signedOut.status).toBe(401);
    await ageSession(alice.cookie, FRESH_SIGN_IN_SECONDS + 60);
    const stale = await post("/account/keys", body, { Origin: ISSUER, Cookie: alice.cookie });
    expect(stale.status).toBe(401);
    expect(await stale.json()).toMatchObject({ error: "reauth_required" });
    expect(await listPersonalKeys(alice.user.id)).toEqual([]);
  });

  it("refuses a name that is empty, too long or carries control characters, a person without a key, and more than the limit", async () => {
    const alice = await person();
    for (const name of ["", "   ", "x".repeat(61), "bell\u0007here", "bidi\u202Ename"]) {
      const response = await make(alice, name);
      expect(response.status, JSON.stringify(name)).toBe(400);
    }
    const keyless = await person(false);
    const refused = await make(keyless, "Script");
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: "key_required" });

    for (let index = 0; index < MAX_PERSONAL_KEYS; index += 1) {
      await db().$transaction((tx) =>
        issuePersonalKey(tx, {
          userId: alice.user.id,
          client: PERSONAL_KEYS_CLIENT,
          name: `Key ${index}`,
          clientIp: null,
        }),
      );
    }
    const tooMany = await make(alice, "One more");
    expect(tooMany.status).toBe(409);
    expect(await tooMany.json()).toMatchObject({ error: "too_many_keys" });
    expect(await listPersonalKeys(alice.user.id)).toHaveLength(MAX_PERSONAL_KEYS);
  });
});
