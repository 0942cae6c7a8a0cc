import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { generateKeyPair } from "../crypto/envelope";
import { db, disconnectDb } from "../db/client";
import { rawSetting, setSetting } from "../env";
import { connectedPartnerUser } from "../../test/bank-data";
import { startObservedServer, type ObservedServer } from "../../test/observed-server";
import { handleDemoForget, handleDemoSync, sessionCsrfToken, type DemoStatus } from "./demo";
import { KEYS_COOKIE_LIFETIME_SECONDS, sealCredentials } from "./key-cookie";
import { demoHash } from "./secrets";
import { loadDemoView } from "./view";

/**
 * The demo partner when its key dies or its private key no longer opens the
 * data: it reads the service over real HTTP (test/observed-server.ts, the
 * data API as production answers it), says the access ended, and forgets the
 * keys instead of showing "Connected" above an empty list.
 */

let server: ObservedServer;
beforeAll(async () => {
  server = await startObservedServer();
});
afterAll(async () => {
  await server.close();
  await disconnectDb();
});

const original = {
  ISSUER: rawSetting("ISSUER") ?? "",
  DEMO_ENABLED: rawSetting("DEMO_ENABLED") ?? "",
};
afterEach(() => {
  for (const [name, value] of Object.entries(original)) setSetting(name, value);
});

/** A connected demo session of a fresh browser and its keys cookie, as the callback leaves them. */
async function connectedDemo(credentials: { apiKey: string; privateKey: string }) {
  const browserId = randomBytes(32).toString("base64url");
  const session = await db().demoSession.create({
    data: {
      browserHash: demoHash("browser", browserId),
      stateHash: demoHash("state", randomBytes(16).toString("base64url")),
      csrfSecret: randomBytes(32).toString("base64url"),
      status: "connected",
      expiresAt: new Date(Date.now() + KEYS_COOKIE_LIFETIME_SECONDS * 1000),
    },
  });
  return { browserId, session, keys: sealCredentials(session.id, credentials) };
}

const statusOf = async (id: string) =>
  (await db().demoSession.findUniqueOrThrow({ where: { id } })).status as DemoStatus;

/** Revokes the key as the partner's backend would (RFC 7009), over HTTP. */
async function revoke(client: { clientId: string; clientSecret: string }, apiKey: string) {
  const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64");
  const response = await fetch(`${server.origin}/oauth/revoke`, {
    method: "POST",
    headers: {
      Authorization: `Basic ${basic}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ token: apiKey }),
  });
  expect(response.status).toBe(200);
}

describe("the demo partner, when the access it holds has ended", () => {
  it("reads and opens the accounts while the key is alive", async () => {
    setSetting("ISSUER", server.origin);
    const { key, keys } = await connectedPartnerUser();
    const demo = await connectedDemo({ apiKey: key, privateKey: keys.privateKeyPkcs8B64 });
    const view = await loadDemoView(demo.browserId, demo.keys);
    expect(view.session?.status).toBe("connected");
    expect(view.session?.accounts.length).toBeGreaterThan(0);
    expect(view.forgetKeys).toBe(false);
  });

  it("shows a key the service answers 401 invalid_token as ended, never as connected, and forgets it", async () => {
    setSetting("ISSUER", server.origin);
    setSetting("DEMO_ENABLED", "true");
    const { client, key, keys } = await connectedPartnerUser();
    const demo = await connectedDemo({ apiKey: key, privateKey: keys.privateKeyPkcs8B64 });
    await revoke(client, key);

    const view = await loadDemoView(demo.browserId, demo.keys);
    expect(view.session?.status).toBe("ended");
    expect(view.session?.accounts).toEqual([]);
    // The page sends the browser to delete the cookie.
    expect(view.forgetKeys).toBe(true);
    const ended = view.session?.steps.find((step) => step.labelKey === "accessEnded");
    expect(ended).toMatchObject({ ok: false, values: { status: 401, error: "invalid_token" } });
    expect(view.session?.steps.map((step) => step.label)).toContain(
      "GET /api/accounts → 401 (this page view)",
    );
    // Stored: the next page view asks nothing and still says why.
    expect(await statusOf(demo.session.id)).toBe("ended");
    const again = await loadDemoView(demo.browserId, undefined);
    expect(again.session?.status).toBe("ended");
    expect(again.forgetKeys).toBe(false);
    expect(again.session?.steps.some((step) => step.labelKey === "accessEnded")).toBe(true);

    const cookie = `demo_browser=${demo.browserId}; demo_keys=${demo.keys}`;
    const forgot = await handleDemoForget(
      new Request(`${server.origin}/demo/forget`, { headers: { Cookie: cookie } }),
    );
    expect(forgot.status).toBe(303);
    expect(forgot.headers.get("location")).toBe("/demo");
    expect(forgot.headers.get("set-cookie")).toBe(
      "demo_keys=; Path=/demo; Max-Age=0; HttpOnly; SameSite=Lax",
    );
  });

  it("keeps the keys cookie of a connection that still works", async () => {
    setSetting("ISSUER", server.origin);
    setSetting("DEMO_ENABLED", "true");
    const { key, keys } = await connectedPartnerUser();
    const demo = await connectedDemo({ apiKey: key, privateKey: keys.privateKeyPkcs8B64 });
    const cookie = `demo_browser=${demo.browserId}; demo_keys=${demo.keys}`;
    const forgot = await handleDemoForget(
      new Request(`${server.origin}/demo/forget`, { headers: { Cookie: cookie } }),
    );
    expect(forgot.headers.get("set-cookie")).toBeNull();
    expect(await statusOf(demo.session.id)).toBe("connected");
  });

  it("ends the connection when Sync meets the dead key, and deletes the keys cookie", async () => {
    setSetting("ISSUER", server.origin);
    setSetting("DEMO_ENABLED", "true");
    const { client, key, keys } = await connectedPartnerUser();
    const demo = await connectedDemo({ apiKey: key, privateKey: keys.privateKeyPkcs8B64 });
    await revoke(client, key);
    const synced = await handleDemoSync(
      new Request(`${server.origin}/demo/sync`, {
        method: "POST",
        headers: {
          Origin: server.origin,
          Cookie: `demo_browser=${demo.browserId}; demo_keys=${demo.keys}`,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: `csrf=${sessionCsrfToken(demo.session, "sync")}`,
      }),
    );
    expect(synced.status).toBe(303);
    expect(synced.headers.get("location")).toBe("/demo");
    expect(synced.headers.get("set-cookie")).toBe(
      "demo_keys=; Path=/demo; Max-Age=0; HttpOnly; SameSite=Lax",
    );
    expect(await statusOf(demo.session.id)).toBe("ended");
  });

  it("says so when the data no longer opens with the private key it was given", async () => {
    setSetting("ISSUER", server.origin);
    const { key } = await connectedPartnerUser();
    // The data is sealed to another key than the one relayed to this demo.
    const demo = await connectedDemo({
      apiKey: key,
      privateKey: generateKeyPair().privateKeyPkcs8B64,
    });
    const view = await loadDemoView(demo.browserId, demo.keys);
    expect(view.session?.status).toBe("unreadable");
    expect(view.session?.accounts).toEqual([]);
    expect(view.forgetKeys).toBe(true);
    expect(view.session?.steps.at(-1)).toMatchObject({ labelKey: "unreadable", ok: false });
    expect(await statusOf(demo.session.id)).toBe("unreadable");
  });
});
