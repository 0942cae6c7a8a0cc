import { describe, expect, it } from "vitest";
import { db } from "../db/client";
import { createClient, rotateClientSecret } from "./clients";
import { setPartnerStatus } from "./partners";
import {
  createTestClient,
  ISSUER,
  mintApiKey,
  signedInCookie,
  createTestUser,
} from "../../test/oauth-fixtures";
import { ownerOf, type TestOwner } from "../../test/partner-owners";
import { uniqueAddress } from "../../test/audit";
import { handlePartnerAuditEvents } from "./audit-log-api";
import { recordAuditEvent } from "../audit/record";

/** GET /api/partner/audit-events: a partner's owners read their own partner's events, nothing else. */

interface Page {
  events: {
    id: string;
    at: string;
    type: string;
    actor: Record<string, unknown>;
    clientId: string | null;
    subject: string | null;
    clientIp: string | null;
    details: Record<string, unknown>;
  }[];
  next: string | null;
}

const get = (cookie: string, query = "", headers: Record<string, string> = {}) =>
  handlePartnerAuditEvents(
    new Request(`${ISSUER}/api/partner/audit-events${query}`, {
      headers: { Cookie: cookie, ...headers },
    }),
  );

async function page(owner: Pick<TestOwner, "cookie">, query = ""): Promise<Page> {
  const response = await get(owner.cookie, query);
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toBe("no-store");
  return (await response.json()) as Page;
}

const asOwner = (owner: TestOwner, address = uniqueAddress()) => ({
  actor: { kind: "user" as const, id: owner.user.id },
  clientIp: address,
});

describe("GET /api/partner/audit-events", () => {
  it("lists the partner's events newest first with the acting owner's email, and pages older ones by cursor", async () => {
    const owner = await ownerOf();
    const address = uniqueAddress();
    const clientId = owner.clients[0]?.clientId ?? "";
    for (let i = 0; i < 3; i += 1) {
      await rotateClientSecret(clientId, new Date(), asOwner(owner, address));
    }
    await setPartnerStatus(owner.partnerId, "suspended", {
      actor: { kind: "operator", id: "root" },
      clientIp: null,
    });

    const first = await page(owner, "?limit=2");
    expect(first.events.map((event) => event.type)).toEqual([
      "partner.suspended",
      "client.secret_rotated",
    ]);
    // The operator's account name stays on the server.
    expect(first.events[0]?.actor).toEqual({ kind: "operator" });
    expect(first.events[1]).toMatchObject({
      actor: { kind: "user", email: owner.user.email },
      clientId,
      clientIp: address,
      details: { previousSecretExpiresAt: expect.any(String) },
    });
    expect(first.next).toEqual(expect.any(String));

    const second = await page(owner, `?limit=2&before=${first.next}`);
    expect(second.events.map((event) => event.type)).toEqual([
      "client.secret_rotated",
      "client.secret_rotated",
    ]);
    const third = await page(owner, `?limit=2&before=${second.next}`);
    // The client's creation by the fixture, as the service's own; then nothing older.
    expect(third.events.map((event) => [event.type, event.actor])).toEqual([
      ["client.created", { kind: "system" }],
      ["partner.created", { kind: "system" }],
    ]);
    expect(third.next).toBeNull();
    const all = [...first.events, ...second.events, ...third.events];
    const times = all.map((event) => event.at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(new Set(all.map((event) => event.id)).size).toBe(6);
  });

  it("filters by one event type and shows a key's client as its actor", async () => {
    const owner = await ownerOf();
    const client = owner.clients[0];
    if (!client) throw new Error("the owner has no client");
    const { key } = await mintApiKey(client);
    const issued = await page(owner, "?type=api_key.issued");
    expect(issued.events).toHaveLength(1);
    expect(issued.events[0]).toMatchObject({
      type: "api_key.issued",
      actor: { kind: "client", clientId: client.clientId },
      subject: key.slice(0, 12),
    });
    expect(JSON.stringify(issued)).not.toContain(key);
    expect((await page(owner, "?type=partner.suspended")).events).toEqual([]);
  });

  it("never shows another partner's events, and refuses ?partner= of a partner the user does not own", async () => {
    const owner = await ownerOf();
    const other = await ownerOf();
    await rotateClientSecret(other.clients[0]?.clientId ?? "", new Date(), asOwner(other));
    await createClient(
      { partnerId: other.partnerId, redirectUris: ["https://other.example/cb"] },
      asOwner(other),
    );

    const mine = await page(owner, "?limit=100");
    expect(mine.events.length).toBeGreaterThan(0);
    const otherClients = await db().client.findMany({ where: { partnerId: other.partnerId } });
    for (const event of mine.events) {
      expect(otherClients.map((client) => client.id)).not.toContain(event.clientId);
    }
    const foreign = await get(owner.cookie, `?partner=${other.partnerId}`);
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: "not_owner" });
  });

  it("shows an owner of two partners only the chosen partner's events", async () => {
    const owner = await ownerOf(2);
    const [one, two] = owner.clients;
    await rotateClientSecret(two?.clientId ?? "", new Date(), asOwner(owner));
    expect((await get(owner.cookie)).status).toBe(400);
    const ofOne = await page(owner, `?partner=${one?.partnerId}`);
    const ofTwo = await page(owner, `?partner=${two?.partnerId}`);
    expect(ofOne.events.map((event) => event.clientId)).not.toContain(two?.clientId);
    expect(ofTwo.events.map((event) => event.type)).toContain("client.secret_rotated");
    expect(ofTwo.events.map((event) => event.clientId)).not.toContain(one?.clientId);
  });

  it("never shows sign-in events, not even one stored with the partner's id", async () => {
    const owner = await ownerOf();
    await recordAuditEvent(db(), {
      type: "sign_in.succeeded",
      context: { actor: { kind: "user", id: owner.user.id }, clientIp: uniqueAddress() },
      partnerId: owner.partnerId,
      userId: owner.user.id,
      details: { method: "link", inFlow: false },
    });
    const listed = await page(owner, "?limit=100");
    expect(listed.events.map((event) => event.type)).not.toContain("sign_in.succeeded");
    expect((await get(owner.cookie, "?type=sign_in.succeeded")).status).toBe(400);
  });

  it("refuses an API key with 403, no session with 401 and a non-owner with 403", async () => {
    const owner = await ownerOf();
    const { key } = await mintApiKey(owner.clients[0] ?? (await createTestClient()));
    const credentials: Record<string, string>[] = [
      { "X-Api-Key": key },
      { Authorization: `Bearer ${key}` },
    ];
    for (const headers of credentials) {
      const response = await get(owner.cookie, "", headers);
      expect(response.status).toBe(403);
      expect(response.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope"');
    }
    expect((await get("")).status).toBe(401);
    const stranger = await createTestUser();
    expect((await get(await signedInCookie(stranger.id))).status).toBe(403);
  });

  it("answers 400 invalid_request to an unknown type, a malformed cursor, a bad limit or a repeated parameter", async () => {
    const owner = await ownerOf();
    for (const query of [
      "?type=nope",
      "?before=abc",
      "?before=0",
      "?before=-1",
      "?before=1e3",
      `?before=${"9".repeat(30)}`,
      "?before=%00",
      "?limit=0",
      "?limit=101",
      "?limit=1e2",
      "?limit=-1",
      "?type=api_key.issued&type=api_key.revoked",
    ]) {
      const response = await get(owner.cookie, query);
      expect(response.status, query).toBe(400);
      expect(await response.json()).toMatchObject({
        error: "invalid_request",
        error_description: expect.any(String),
      });
    }
  });
});
