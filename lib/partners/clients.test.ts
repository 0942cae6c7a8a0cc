import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectPartnerError } from "../../test/partner-errors";
import { db, disconnectDb } from "../db/client";
import {
  hashClientSecret,
  PREVIOUS_SECRET_GRACE_MS,
  verifyClientSecret,
} from "../keys/client-credentials";
import { createClient, listClients, rotateClientSecret } from "./clients";
import { type PartnerError } from "./errors";
import { createPartner } from "./partners";

afterAll(disconnectDb);

const unique = () => randomUUID().slice(0, 8);
const URIS = ["https://budget.example/callback", "http://localhost:5173/callback"];

let partnerId = "";
let partnerName = "";
beforeAll(async () => {
  partnerName = `Clients ${unique()}`;
  partnerId = (
    await createPartner({ name: partnerName, ownerEmail: `clients-${unique()}@example.com` })
  ).id;
});

function storedClient(id: string) {
  return db().client.findUniqueOrThrow({ where: { id } });
}

describe("createClient", () => {
  it("creates an obc_ client of the partner and shows the secret once, storing only its keyed hash", async () => {
    const { client, clientSecret } = await createClient({ partnerId, redirectUris: URIS });
    expect(client.id).toMatch(/^obc_[A-Za-z0-9]{24}$/);
    expect(clientSecret).toMatch(/^obs_[A-Za-z0-9_-]{43}$/);
    expect(client).toMatchObject({
      partnerId,
      name: partnerName,
      redirectUris: URIS,
      previousSecretExpiresAt: null,
    });
    expect(client).not.toHaveProperty("secretHash");

    const stored = await storedClient(client.id);
    expect(stored.secretHash).toBe(hashClientSecret(clientSecret));
    expect(JSON.stringify(stored)).not.toContain(clientSecret.slice(4));
    expect(verifyClientSecret(stored, clientSecret, new Date())).toBe(true);
  });

  it("keeps the redirect URIs exactly as given, in order", async () => {
    const uris = ["HTTPS://Budget.Example/CB", "https://budget.example/cb?x=1"];
    const { client } = await createClient({ partnerId, redirectUris: uris });
    expect((await storedClient(client.id)).redirectUris).toEqual(uris);
  });

  it("creates a house client (no partner) with a default name", async () => {
    const { client } = await createClient({ redirectUris: URIS });
    expect(client).toMatchObject({ partnerId: null, name: "House client" });
    const { client: named } = await createClient({
      partnerId: null,
      redirectUris: URIS,
      name: " Console ",
    });
    expect(named).toMatchObject({ partnerId: null, name: "Console" });
  });

  it("refuses bad redirect URIs, listing each problem, and creates nothing", async () => {
    const name = `bad-uris-${unique()}`;
    const error = await expectPartnerError(
      createClient({
        partnerId,
        name,
        redirectUris: ["http://example.com/cb", "https://a.example/#x"],
      }),
      "invalid_redirect_uris",
    );
    expect(error.details).toEqual([
      '"http://example.com/cb": http:// is only allowed for loopback hosts (localhost, 127.0.0.1, [::1])',
      '"https://a.example/#x": must not contain a fragment (#)',
    ]);
    expect(error.message).toContain("2 problems");
    expect(await db().client.count({ where: { name } })).toBe(0);
  });

  it("refuses an empty name", async () => {
    await expectPartnerError(
      createClient({ partnerId, redirectUris: URIS, name: " " }),
      "invalid_name",
    );
  });

  it("refuses an unknown partner, whether a UUID or not", async () => {
    await expectPartnerError(
      createClient({ partnerId: randomUUID(), redirectUris: URIS }),
      "unknown_partner",
    );
    await expectPartnerError(
      createClient({ partnerId: "acme", redirectUris: URIS }),
      "unknown_partner",
    );
  });

  it("accepts a legacy id and refuses it a second time", async () => {
    const id = `legacy.client-${unique()}`;
    const { client } = await createClient({ partnerId, redirectUris: URIS, id });
    expect(client.id).toBe(id);
    const error = await expectPartnerError(
      createClient({ partnerId, redirectUris: URIS, id }),
      "duplicate_client_id",
    );
    expect(error.message).toBe(`a client with id "${id}" already exists`);
  });

  it.each(["ab", "has space", "x".repeat(65), "obc_bad.id.here", "obc_"])(
    "refuses the malformed id %j",
    async (id) => {
      await expectPartnerError(
        createClient({ partnerId, redirectUris: URIS, id }),
        "invalid_client_id",
      );
    },
  );

  it("lets exactly one of several concurrent creations with the same id win", async () => {
    const id = `race-${unique()}`;
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => createClient({ partnerId, redirectUris: URIS, id })),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of results) {
      if (result.status === "rejected")
        expect((result.reason as PartnerError).code).toBe("duplicate_client_id");
    }
  });
});

describe("rotateClientSecret (docs/protocol.md#client-authentication)", () => {
  it("issues a new secret and keeps the previous one valid for 24 hours", async () => {
    const { client, clientSecret: first } = await createClient({ partnerId, redirectUris: URIS });
    const now = new Date("2031-05-01T10:00:00Z");
    const rotated = await rotateClientSecret(client.id, now);
    expect(rotated.clientSecret).not.toBe(first);
    expect(rotated.previousSecretExpiresAt.getTime()).toBe(
      now.getTime() + PREVIOUS_SECRET_GRACE_MS,
    );

    const stored = await storedClient(client.id);
    expect(stored.previousSecretHash).toBe(hashClientSecret(first));
    expect(verifyClientSecret(stored, rotated.clientSecret, now)).toBe(true);
    expect(
      verifyClientSecret(stored, first, new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS - 1)),
    ).toBe(true);
    expect(
      verifyClientSecret(stored, first, new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS)),
    ).toBe(false);
  });

  it("drops the secret from before the last-but-one rotation", async () => {
    const { client, clientSecret: first } = await createClient({ partnerId, redirectUris: URIS });
    const now = new Date();
    const second = await rotateClientSecret(client.id, now);
    const third = await rotateClientSecret(client.id, now);
    const stored = await storedClient(client.id);
    expect(verifyClientSecret(stored, first, now)).toBe(false);
    expect(verifyClientSecret(stored, second.clientSecret, now)).toBe(true);
    expect(verifyClientSecret(stored, third.clientSecret, now)).toBe(true);
  });

  it("refuses an unknown client", async () => {
    const error = await expectPartnerError(
      rotateClientSecret("obc_unknown_client_x"),
      "unknown_client",
    );
    expect(error.message).toBe('no client with id "obc_unknown_client_x"');
  });
});

describe("listClients", () => {
  it("lists only the partner's clients, without secrets or hashes", async () => {
    const other = await createPartner({
      name: `Other ${unique()}`,
      ownerEmail: `other-${unique()}@example.com`,
    });
    const { client: mine } = await createClient({
      partnerId: other.id,
      redirectUris: URIS,
      name: "Mine",
    });
    await createClient({ partnerId, redirectUris: URIS });
    const listed = await listClients(other.id);
    expect(listed.map((client) => client.id)).toEqual([mine.id]);
    expect(JSON.stringify(listed)).not.toMatch(/secretHash|obs_/);
  });

  it("lists house clients for a null partner", async () => {
    const { client } = await createClient({ redirectUris: URIS, name: `House ${unique()}` });
    expect((await listClients(null)).map((c) => c.id)).toContain(client.id);
  });

  it("refuses an unknown partner", async () => {
    await expectPartnerError(listClients(randomUUID()), "unknown_partner");
  });
});
