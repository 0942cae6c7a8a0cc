import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as callbackRoute from "../../app/(flow)/banks/callback/route";
import * as accountsRoute from "../../app/api/accounts/route";
import * as aspspsRoute from "../../app/api/aspsps/route";
import * as authorizationsRoute from "../../app/api/authorizations/route";
import * as connectionsRoute from "../../app/api/connections/route";
import { generateKeyPair, openJson } from "../crypto/envelope";
import { db } from "../db/client";
import { settleIngests } from "../flow/bank-ingest";
import { COMMAND_LINE_CLIENT, issuePersonalKey } from "../oauth/personal-keys";
import { approveSandboxAuthorization, denySandboxAuthorization } from "../upstream/sandbox/consent";
import { createTestClient, createTestUser, mintApiKey } from "../../test/oauth-fixtures";
import { startRouteServer, type RouteServer } from "../../test/route-server";

/**
 * The bank list and connecting a bank with a person's own key
 * (docs/own-data.md): over HTTP, as the command-line client's `banks` and
 * `connect` make them, through to the bank's callback and the new connection
 * in GET /api/connections. A partner's key is refused 403 on both.
 */

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({
    "/api/aspsps": aspspsRoute,
    "/api/authorizations": authorizationsRoute,
    "/api/connections": connectionsRoute,
    "/api/accounts": accountsRoute,
    "/banks/callback": callbackRoute,
  });
});
afterAll(() => server.close());

const GO_AGENT = "open-banking-io/go/0.5.0";
const ip = () => `203.0.113.${randomInt(1, 255)}`;

async function personalKey(options: { withKey?: boolean } = {}) {
  const keys = generateKeyPair();
  const created = await createTestUser();
  const user =
    options.withKey === false
      ? created
      : await db().user.update({
          where: { id: created.id },
          data: { publicKey: keys.publicKeyRawB64, publicKeyAt: new Date() },
        });
  const issued = await db().$transaction((tx) =>
    issuePersonalKey(tx, {
      userId: user.id,
      client: COMMAND_LINE_CLIENT,
      name: null,
      clientIp: null,
    }),
  );
  return { user, keys, key: issued.apiKey };
}

const get = (path: string, key: string) =>
  fetch(`${server.origin}${path}`, {
    headers: { "X-Api-Key": key, "User-Agent": GO_AGENT, "X-Forwarded-For": ip() },
  });

const post = (path: string, key: string, body: unknown) =>
  fetch(`${server.origin}${path}`, {
    method: "POST",
    headers: {
      "X-Api-Key": key,
      "User-Agent": GO_AGENT,
      "Content-Type": "application/json",
      "X-Forwarded-For": ip(),
    },
    body: JSON.stringify(body),
  });

/** The browser at the bank: approves (or denies) and comes back to the service's callback. */
async function atTheBank(url: string, decision: "approve" | "deny" = "approve") {
  const authorization = new URL(url).searchParams.get("authorization") ?? "";
  const back =
    decision === "approve"
      ? approveSandboxAuthorization(authorization)
      : denySandboxAuthorization(authorization);
  const callback = new URL(back ?? "");
  expect(callback.pathname).toBe("/banks/callback");
  return fetch(`${server.origin}${callback.pathname}${callback.search}`, {
    redirect: "manual",
    headers: { "X-Forwarded-For": ip() },
  });
}

describe("the bank list and connecting a bank, for a person's own key", () => {
  it("lists a country's banks with their name, country, logo, BIC, beta flag and kinds of customer", async () => {
    const { key } = await personalKey();
    const response = await get("/api/aspsps?country=DK", key);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toContain("no-store");
    const banks = (await response.json()) as Record<string, unknown>[];
    expect(banks.length).toBeGreaterThan(0);
    for (const bank of banks) {
      expect(Object.keys(bank)).toEqual(["name", "country", "logo", "bic", "beta", "psuTypes"]);
      expect(bank.country).toBe("DK");
    }
    expect(banks).toContainEqual({
      name: "Sandbox Nordbank DK",
      country: "DK",
      logo: null,
      bic: "SBNODKKK",
      beta: false,
      psuTypes: ["personal", "business"],
    });
    const lower = (await (await get("/api/aspsps?country=dk", key)).json()) as unknown[];
    expect(lower).toEqual(banks);
    const every = (await (await get("/api/aspsps", key)).json()) as { country: string }[];
    expect(new Set(every.map((bank) => bank.country)).size).toBeGreaterThan(1);
    for (const bad of ["DNK", "1", "D%20K", "DK&country=SE"]) {
      const refused = await get(`/api/aspsps?country=${bad}`, key);
      expect(refused.status, bad).toBe(400);
      expect(await refused.json()).toMatchObject({ error: "invalid_request" });
    }
  });

  it("refuses a partner's key with 403 insufficient_scope on both, and no key with 401", async () => {
    const { key } = await mintApiKey(await createTestClient());
    for (const response of [
      await get("/api/aspsps?country=DK", key),
      await post("/api/authorizations", key, { country: "DK", aspspName: "Sandbox Nordbank DK" }),
    ]) {
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: "insufficient_scope" });
      expect(response.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    }
    expect((await get("/api/aspsps", "")).status).toBe(401);
    expect((await post("/api/authorizations", "ebk_unknown", {})).status).toBe(401);
    expect(
      await db().bankAuthorization.count({ where: { tenant: { partnerId: { not: null } } } }),
    ).toBe(0);
  });

  it("connects a bank: the consent page, the bank's callback, then the new connection in /api/connections", async () => {
    const { user, keys, key } = await personalKey();
    const before = (await (await get("/api/connections", key)).json()) as unknown[];
    expect(before).toEqual([]);

    const started = await post("/api/authorizations", key, {
      country: "DK",
      aspspName: "Sandbox Nordbank DK",
      psuType: "personal",
    });
    expect(started.status).toBe(200);
    const body = (await started.json()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(["url"]);
    expect(typeof body.url).toBe("string");
    const stored = await db().bankAuthorization.findFirstOrThrow({
      where: { tenant: { userId: user.id } },
    });
    expect(stored).toMatchObject({ flowId: null, psuType: "personal", completedAt: null });
    // Only the state's keyed hash is kept.
    expect(body.url).not.toContain(stored.stateHash);

    const back = await atTheBank(body.url as string);
    expect(back.status).toBe(303);
    expect(back.headers.get("location")).toBe("/banks/connected?result=connecting");
    await settleIngests();

    const connections = (await (await get("/api/connections", key)).json()) as {
      sessionId: string;
      aspspName: string;
      accountIds: string[];
    }[];
    expect(connections).toHaveLength(1);
    expect(connections[0]).toMatchObject({ aspspName: "Sandbox Nordbank DK", psuType: "personal" });
    const accounts = (await (await get("/api/accounts", key)).json()) as {
      id: string;
      uidEnc: string;
    }[];
    expect(accounts.map((account) => account.id).sort()).toEqual(
      [...(connections[0]?.accountIds ?? [])].sort(),
    );
    // Sealed to the person's own key: their private key opens it.
    expect(
      openJson<{ uid: string }>(keys.privateKeyPkcs8B64, accounts[0]?.uidEnc ?? "").uid,
    ).toBeTruthy();

    // The callback again (Back at the bank): already connected, nothing stored twice.
    const again = await atTheBank(body.url as string);
    expect(again.headers.get("location")).toBe("/banks/connected?result=connected");
    await settleIngests();
    expect(await db().connection.count({ where: { tenant: { userId: user.id } } })).toBe(1);

    // Another person's personal key sees none of it.
    const other = await personalKey();
    expect(await (await get("/api/connections", other.key)).json()).toEqual([]);
    expect(await (await get("/api/accounts", other.key)).json()).toEqual([]);
  });

  it("stores nothing when the person says no at the bank, or when the callback is stale", async () => {
    const { user, key } = await personalKey();
    const started = (await (
      await post("/api/authorizations", key, { country: "DK", aspspName: "Sandbox Nordbank DK" })
    ).json()) as { url: string };
    const denied = await atTheBank(started.url, "deny");
    expect(denied.headers.get("location")).toBe("/banks/connected?result=denied");

    const late = (await (
      await post("/api/authorizations", key, { country: "DK", aspspName: "Sandbox Nordbank DK" })
    ).json()) as { url: string };
    await db().bankAuthorization.updateMany({
      where: { tenant: { userId: user.id }, completedAt: null },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const stale = await atTheBank(late.url);
    expect(stale.headers.get("location")).toBe("/banks/connected?result=failed");
    await settleIngests();
    expect(await db().connection.count({ where: { tenant: { userId: user.id } } })).toBe(0);
  });

  it("refuses an unknown bank, a kind of customer the bank does not serve, a bad body and a person without a key", async () => {
    const { key } = await personalKey();
    const cases: [unknown, number, string][] = [
      [{ country: "DK", aspspName: "No Such Bank" }, 404, "not_found"],
      [{ country: "SE", aspspName: "Sandbox Nordbank DK" }, 404, "not_found"],
      [
        { country: "DK", aspspName: "Sandbox Erhvervsbank DK", psuType: "personal" },
        400,
        "invalid_request",
      ],
      [
        { country: "DK", aspspName: "Sandbox Nordbank DK", psuType: "corporate" },
        400,
        "invalid_request",
      ],
      [{ country: "Denmark", aspspName: "Sandbox Nordbank DK" }, 400, "invalid_request"],
      [{ aspspName: "Sandbox Nordbank DK" }, 400, "invalid_request"],
      [{ country: 45, aspspName: "Sandbox Nordbank DK" }, 400, "invalid_request"],
      [[], 400, "invalid_request"],
    ];
    for (const [body, status, reason] of cases) {
      const response = await post("/api/authorizations", key, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(await response.json()).toMatchObject({ status, reason });
    }
    const keyless = await personalKey({ withKey: false });
    const refused = await post("/api/authorizations", keyless.key, {
      country: "DK",
      aspspName: "Sandbox Nordbank DK",
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ status: 409, reason: "key_required" });
  });
});
