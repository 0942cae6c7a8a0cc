import { randomBytes } from "node:crypto";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { db, disconnectDb } from "../db/client";
import { rawSetting, setSetting } from "../env";
import {
  handleDemoCallback,
  handleDemoRevoke,
  handleDemoStart,
  handleDemoSync,
  sessionCsrfToken,
} from "./demo";
import { KEYS_COOKIE_LIFETIME_SECONDS, sealCredentials } from "./key-cookie";
import { demoHash, sealForStorage } from "./secrets";
import { loadDemoView } from "./view";

afterAll(disconnectDb);

const ORIGIN = "http://localhost:3000";

function post(path: string, headers: Record<string, string> = {}, body = "csrf=x") {
  return new Request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    body,
  });
}

/** A connected demo session of a fresh browser, as the callback leaves it. */
async function connectedSession() {
  const browserId = randomBytes(32).toString("base64url");
  const session = await db().demoSession.create({
    data: {
      browserHash: demoHash("browser", browserId),
      stateHash: demoHash("state", randomBytes(16).toString("base64url")),
      codeVerifierEnc: null,
      csrfSecret: randomBytes(32).toString("base64url"),
      status: "connected",
      expiresAt: new Date(Date.now() + KEYS_COOKIE_LIFETIME_SECONDS * 1000),
    },
  });
  return { browserId, session };
}

const keys = { apiKey: "ebk_never_sent_anywhere", privateKey: "MIGHAgEAMBMGByqGSM49AgEG" };
const longAgo = () => Date.now() - KEYS_COOKIE_LIFETIME_SECONDS * 1000 - 1_000;

const original = {
  ISSUER: rawSetting("ISSUER") ?? "",
  DEMO_ENABLED: rawSetting("DEMO_ENABLED") ?? "",
};

afterEach(() => {
  for (const [name, value] of Object.entries(original)) setSetting(name, value);
});

describe("the demo partner's endpoints", () => {
  it("answer 404 on every path when the demo is disabled", async () => {
    setSetting("ISSUER", ORIGIN);
    setSetting("DEMO_ENABLED", "false");
    const handlers = [
      [handleDemoStart, "/demo/start"],
      [handleDemoCallback, "/demo/callback"],
      [handleDemoSync, "/demo/sync"],
      [handleDemoRevoke, "/demo/revoke"],
    ] as const;
    for (const [handle, path] of handlers) {
      const response = await handle(post(path, { Origin: ORIGIN }));
      expect(response.status, path).toBe(404);
    }
  });

  it("refuse a page POST from another origin (CSRF)", async () => {
    setSetting("ISSUER", ORIGIN);
    setSetting("DEMO_ENABLED", "true");
    for (const handle of [handleDemoStart, handleDemoSync, handleDemoRevoke]) {
      expect((await handle(post("/demo/x", { Origin: "https://evil.example" }))).status).toBe(403);
      expect((await handle(post("/demo/x"))).status).toBe(403);
    }
  });
});

describe("the demo keeps users' keys only in the browser's cookie", () => {
  it("has no database column for an API key or a private key", async () => {
    const columns = await db().$queryRaw<{ column_name: string }[]>`
      SELECT column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'DemoSession'`;
    expect(columns.map((c) => c.column_name).sort()).toEqual(
      [
        "browserHash",
        "codeVerifierEnc",
        "createdAt",
        "csrfSecret",
        "expiresAt",
        "id",
        "lastSync",
        "stateHash",
        "status",
        "steps",
      ].sort(),
    );
  });

  it("refuses an expired keys cookie: the page shows the connection as expired and reads nothing", async () => {
    setSetting("ISSUER", ORIGIN);
    const { browserId, session } = await connectedSession();
    const expired = sealCredentials(session.id, keys, longAgo());
    const view = await loadDemoView(browserId, expired);
    expect(view.session?.status).toBe("expired");
    expect(view.session?.accounts).toEqual([]);
    expect(JSON.stringify(view)).not.toContain(keys.apiKey);
  });

  it("refuses another browser's keys cookie", async () => {
    setSetting("ISSUER", ORIGIN);
    const mine = await connectedSession();
    const theirs = await connectedSession();
    const view = await loadDemoView(mine.browserId, sealCredentials(theirs.session.id, keys));
    expect(view.session?.status).toBe("expired");
  });

  it("does nothing with an expired keys cookie on sync, and deletes it on revoke", async () => {
    setSetting("ISSUER", ORIGIN);
    setSetting("DEMO_ENABLED", "true");
    const { browserId, session } = await connectedSession();
    const cookie = `demo_browser=${browserId}; demo_keys=${sealCredentials(session.id, keys, longAgo())}`;
    const headers = { Origin: ORIGIN, Cookie: cookie };

    const synced = await handleDemoSync(
      post("/demo/sync", headers, `csrf=${sessionCsrfToken(session, "sync")}`),
    );
    expect(synced.status).toBe(303);
    expect(synced.headers.get("location")).toBe("/demo");
    const revoked = await handleDemoRevoke(
      post("/demo/revoke", headers, `csrf=${sessionCsrfToken(session, "revoke")}`),
    );
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("set-cookie")).toBe(
      "demo_keys=; Path=/demo; Max-Age=0; HttpOnly; SameSite=Lax",
    );
    // Neither request reached the service: nothing was added to the protocol log.
    const after = await db().demoSession.findUniqueOrThrow({ where: { id: session.id } });
    expect(after.steps).toEqual([]);
  });

  it("clears an earlier connection's keys cookie when a new connection starts", async () => {
    setSetting("ISSUER", ORIGIN);
    setSetting("DEMO_ENABLED", "true");
    const started = await handleDemoStart(post("/demo/start", { Origin: ORIGIN }, ""));
    expect(started.status).toBe(303);
    expect(started.headers.getSetCookie()).toContain(
      "demo_keys=; Path=/demo; Max-Age=0; HttpOnly; SameSite=Lax",
    );
    const state = new URL(started.headers.get("location") ?? "").searchParams.get("state") ?? "";
    const created = await db().demoSession.findUniqueOrThrow({
      where: { stateHash: demoHash("state", state) },
    });
    expect(created.codeVerifierEnc).not.toBeNull();
  });

  it("forgets the code verifier once the callback has claimed the row", async () => {
    setSetting("ISSUER", ORIGIN);
    setSetting("DEMO_ENABLED", "true");
    const state = randomBytes(16).toString("base64url");
    const session = await db().demoSession.create({
      data: {
        browserHash: demoHash("browser", "b"),
        stateHash: demoHash("state", state),
        codeVerifierEnc: sealForStorage("verifier"),
        csrfSecret: "c",
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    // The service is not running here: discovery fails, so the callback ends as failed.
    const response = await handleDemoCallback(
      post("/demo/callback", {}, new URLSearchParams({ state, code: "x", iss: ORIGIN }).toString()),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("set-cookie")).toBeNull();
    const after = await db().demoSession.findUniqueOrThrow({ where: { id: session.id } });
    expect(after.status).toBe("failed");
    expect(after.codeVerifierEnc).toBeNull();
  });
});
