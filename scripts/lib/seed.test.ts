import { createHmac } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { db, disconnectDb } from "../../lib/db/client";
import { demoClientSecret } from "../../lib/demo/secrets";
import { getEnv, rawSetting, setSetting } from "../../lib/env";
import { hashClientSecret, verifyClientSecret } from "../../lib/keys/client-credentials";
import { DEMO_CLIENT_ID, DEMO_PARTNER_NAME, seedDemo, toDemoRedirectUri } from "./seed";

afterAll(disconnectDb);

/** Runs `body` with some settings changed, restoring them after (a blank value means unset). */
async function withSettings<T>(
  settings: Record<string, string>,
  body: () => Promise<T>,
): Promise<T> {
  const previous = Object.fromEntries(
    Object.keys(settings).map((name) => [name, rawSetting(name) ?? ""]),
  );
  for (const [name, value] of Object.entries(settings)) setSetting(name, value);
  try {
    return await body();
  } finally {
    for (const [name, value] of Object.entries(previous)) setSetting(name, value);
  }
}

async function demoRows() {
  const partners = await db().partner.findMany({
    where: { name: DEMO_PARTNER_NAME },
    include: { owners: { include: { user: true } } },
  });
  const client = await db().client.findUnique({ where: { id: DEMO_CLIENT_ID } });
  const sealed = await db().demoClientSecret.findUnique({ where: { clientId: DEMO_CLIENT_ID } });
  return { partners, client, sealed };
}

describe("seedDemo", () => {
  it("is idempotent: run twice (and concurrently) it leaves one partner and one client, same secret", async () => {
    const first = await seedDemo();
    const again = await Promise.all([seedDemo(), seedDemo(), seedDemo()]);
    for (const run of again) expect(run).toEqual(first);

    const { partners, client } = await demoRows();
    expect(partners).toHaveLength(1);
    expect(partners[0]?.id).toBe(first.partnerId);
    expect(partners[0]?.owners.map((owner) => owner.user.email)).toEqual(["demo@example.com"]);
    expect(await db().user.count({ where: { email: "demo@example.com" } })).toBe(1);
    expect(client).toMatchObject({ partnerId: first.partnerId, name: DEMO_PARTNER_NAME });
    expect(client?.redirectUris).toEqual([`${getEnv().issuer}/demo/callback`]);
    expect(verifyClientSecret(client!, first.clientSecret!, new Date())).toBe(true);
  });

  it("makes the demo client's secret random per installation: hashed on the client, sealed for the demo", async () => {
    const seeded = await seedDemo();
    const secret = seeded.clientSecret!;
    expect(seeded.clientId).toBe("obc_demo_budget_app");
    expect(secret).toMatch(/^obs_[A-Za-z0-9_-]{43}$/);
    // Not the value every installation on the same SECRET_KEY used to share.
    const derived = createHmac("sha256", getEnv().secretKey).update("demo-client-secret");
    expect(secret).not.toBe(`obs_${derived.digest("base64url")}`);

    const { client, sealed } = await demoRows();
    expect(client?.secretHash).toBe(hashClientSecret(secret));
    expect(JSON.stringify(client)).not.toContain(secret.slice(4));
    expect(sealed?.secretEnc).not.toContain(secret.slice(4));
    // The demo partner presents exactly that secret to the token endpoint.
    expect(await demoClientSecret()).toBe(secret);

    // Another installation (no sealed secret yet) gets another secret.
    await db().demoClientSecret.delete({ where: { clientId: DEMO_CLIENT_ID } });
    const other = await seedDemo();
    expect(other.clientSecret).not.toBe(secret);
    expect(await demoClientSecret()).toBe(other.clientSecret);
    const { client: after } = await demoRows();
    expect(verifyClientSecret(after!, other.clientSecret!, new Date())).toBe(true);
    expect(verifyClientSecret(after!, secret, new Date())).toBe(false);
  });

  it("replaces a secret rotated by hand, so the demo keeps working", async () => {
    const before = await seedDemo();
    await db().client.update({
      where: { id: DEMO_CLIENT_ID },
      data: { secretHash: hashClientSecret("obs_rotated_by_an_operator") },
    });
    const seeded = await seedDemo();
    expect(seeded.clientSecret).not.toBe(before.clientSecret);
    const { client } = await demoRows();
    expect(client?.secretHash).toBe(hashClientSecret(seeded.clientSecret!));
    expect(await demoClientSecret()).toBe(seeded.clientSecret);
  });

  it("repairs a stored hash that no longer matches, and a changed redirect URI", async () => {
    await seedDemo();
    await db().client.update({
      where: { id: DEMO_CLIENT_ID },
      data: { secretHash: "stale", redirectUris: ["https://elsewhere.example/cb"] },
    });
    const seeded = await seedDemo();
    const { client } = await demoRows();
    expect(client?.secretHash).toBe(hashClientSecret(seeded.clientSecret!));
    expect(client?.redirectUris).toEqual([seeded.redirectUri]);
  });

  it("follows a change of SECRET_KEY: the new secret verifies, the old one no longer does", async () => {
    const before = await seedDemo();
    const after = await withSettings(
      { SECRET_KEY: "another-local-secret-key-of-32-characters!" },
      async () => {
        const seeded = await seedDemo();
        const { client } = await demoRows();
        expect(verifyClientSecret(client!, seeded.clientSecret!, new Date())).toBe(true);
        expect(verifyClientSecret(client!, before.clientSecret!, new Date())).toBe(false);
        return seeded;
      },
    );
    expect(after.clientSecret).not.toBe(before.clientSecret);
    expect(after.partnerId).toBe(before.partnerId);
    await seedDemo();
  });

  it("in production mode never reveals the secret and keeps the stored one", async () => {
    await seedDemo();
    const production = {
      ISSUER: "https://connect.bank.example",
      SECRET_KEY: "a-production-secret-key-of-at-least-32-chars",
      REDIS_URL: "redis://127.0.0.1:6379",
      RESEND_API_KEY: "re_test",
      UPSTREAM: "sandbox",
    };
    await withSettings(production, async () => {
      expect(getEnv().mode).toBe("production");
      const first = await seedDemo();
      expect(first.clientSecret).toBeNull();
      expect(first.redirectUri).toBe("https://connect.bank.example/demo/callback");
      const { client: before } = await demoRows();
      const again = await seedDemo();
      expect(again.clientSecret).toBeNull();
      const { client: after } = await demoRows();
      expect(after?.secretHash).toBe(before?.secretHash);
      // The demo can still authenticate: its sealed secret matches the client's hash.
      expect(verifyClientSecret(after!, (await demoClientSecret())!, new Date())).toBe(true);
    });
    await seedDemo();
  });

  it("never reveals the secret from a production build, even a local-only one", async () => {
    await withSettings({ NODE_ENV: "production", LOCAL_ONLY: "true" }, async () => {
      expect(getEnv().mode).toBe("local");
      expect((await seedDemo()).clientSecret).toBeNull();
      expect(await demoClientSecret()).toMatch(/^obs_/);
    });
  });
});

describe("toDemoRedirectUri", () => {
  it("is the issuer plus /demo/callback", () => {
    expect(toDemoRedirectUri("http://localhost:3000")).toBe("http://localhost:3000/demo/callback");
    expect(toDemoRedirectUri("http://127.0.0.1:4000/")).toBe("http://127.0.0.1:4000/demo/callback");
  });
});
