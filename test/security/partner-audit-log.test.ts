import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as auditEvents from "../../app/api/partner/audit-events/route";
import { deleteEverything } from "../../lib/account/delete-everything";
import { endPartnerAccess } from "../../lib/account/end-access";
import { replaceUserKey } from "../../lib/banking/start-over";
import { generateKeyPair } from "../../lib/crypto/envelope";
import { db } from "../../lib/db/client";
import { rotateClientSecret } from "../../lib/partners/clients";
import { uniqueAddress } from "../audit";
import { issueCode, newVerifier, tokenRequest, type TestClient } from "../oauth-fixtures";
import { ownerOf, type TestOwner } from "../partner-owners";
import { startRouteServer, type RouteServer } from "../route-server";

/**
 * The partner's security log, read over HTTP as the dashboard reads it: it
 * shows no network address of the partner's end users, and it pages by a
 * cursor that says nothing about the log and works only for the partner it
 * was given to (docs/audit-log.md).
 */

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({ "/api/partner/audit-events": auditEvents });
});
afterAll(() => server.close());

/** A documentation address of its own, as the proxy in front would name it. */
const address = uniqueAddress;

interface Event {
  id: string;
  type: string;
  actor: { kind: string };
  clientIp: string | null;
  details: Record<string, unknown>;
}
interface Page {
  events: Event[];
  next: string | null;
}

function read(owner: Pick<TestOwner, "cookie">, query: string) {
  return fetch(`${server.origin}/api/partner/audit-events${query}`, {
    headers: { Cookie: owner.cookie, "X-Forwarded-For": address() },
  });
}

async function page(owner: Pick<TestOwner, "cookie">, query = ""): Promise<Page> {
  const response = await read(owner, query);
  expect(response.status, query).toBe(200);
  return (await response.json()) as Page;
}

/** An API key for a new user through the token endpoint, called from `from` over HTTP. */
async function keyFromPartnerServer(client: TestClient, from: string) {
  const verifier = newVerifier();
  const { code, user } = await issueCode(client, verifier);
  const request = tokenRequest(client, code, verifier);
  const response = await fetch(`${server.origin}/oauth/token`, {
    method: "POST",
    headers: { ...Object.fromEntries(request.headers), "X-Forwarded-For": from },
    body: await request.text(),
  });
  expect(response.status).toBe(200);
  return user;
}

const asUser = (userId: string, clientIp: string) => ({
  actor: { kind: "user" as const, id: userId },
  clientIp,
});

describe("the partner's security log over HTTP", () => {
  it("shows no end user's network address, and keeps the owners' and the partner's servers' own", async () => {
    const owner = await ownerOf();
    const client = owner.clients[0];
    if (!client) throw new Error("the owner has no client");
    const partnerServer = address();
    const ownerDesk = address();
    const [ending, deleting, startingOver] = [address(), address(), address()];

    // Three end users get keys; the owner rotates the client's secret.
    const endsAccess = await keyFromPartnerServer(client, partnerServer);
    const deletes = await keyFromPartnerServer(client, partnerServer);
    const startsOver = await keyFromPartnerServer(client, partnerServer);
    await rotateClientSecret(client.clientId, new Date(), asUser(owner.user.id, ownerDesk));

    // Each end user ends the partner's key in their own way, from their own address.
    await endPartnerAccess({
      userId: endsAccess.id,
      partnerId: owner.partnerId,
      audit: asUser(endsAccess.id, ending),
    });
    expect(
      await deleteEverything({ userId: deletes.id, audit: asUser(deletes.id, deleting) }),
    ).toMatchObject({ kind: "deleted", apiKeysRevoked: 1 });
    const oldKey = generateKeyPair().publicKeyRawB64;
    await db().user.update({ where: { id: startsOver.id }, data: { publicKey: oldKey } });
    await db().tenant.updateMany({
      where: { userId: startsOver.id },
      data: { sealingKey: oldKey, sealingKeyKind: "user" },
    });
    expect(
      await replaceUserKey({
        userId: startsOver.id,
        replaces: oldKey,
        publicKey: generateKeyPair().publicKeyRawB64,
        audit: asUser(startsOver.id, startingOver),
      }),
    ).toMatchObject({ replaced: true, apiKeysRevoked: 1 });

    // The rows hold every address; the partner is shown only its own side's.
    const stored = await db().auditEvent.findMany({ where: { partnerId: owner.partnerId } });
    for (const ip of [ending, deleting, startingOver, ownerDesk, partnerServer]) {
      expect(stored.map((event) => event.clientIp)).toContain(ip);
    }
    const response = await read(owner, "?limit=100");
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const ip of [ending, deleting, startingOver]) expect(text).not.toContain(ip);
    const { events } = JSON.parse(text) as Page;
    const revoked = events.filter((event) => event.type === "api_key.revoked");
    expect(revoked.map((event) => [event.details.reason, event.clientIp]).sort()).toEqual([
      ["key_start_over", null],
      ["user_deleted", null],
      ["user_ended_access", null],
    ]);
    const issued = events.filter((event) => event.type === "api_key.issued");
    expect(issued.map((event) => event.clientIp)).toEqual(Array(3).fill(partnerServer));
    expect(events.find((event) => event.type === "client.secret_rotated")?.clientIp).toBe(
      ownerDesk,
    );
  });

  it("pages by an opaque cursor that names no position of the service's log", async () => {
    const owner = await ownerOf();
    const clientId = owner.clients[0]?.clientId ?? "";
    for (let i = 0; i < 4; i += 1) {
      await rotateClientSecret(clientId, new Date(), asUser(owner.user.id, address()));
    }
    const first = await page(owner, "?limit=2");
    const cursor = first.next ?? "";
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{48}$/);
    // The sequence number the page ends at is not in it, in any encoding, and
    // is no longer a cursor itself.
    const [, last] = first.events;
    const row = await db().auditEvent.findFirstOrThrow({
      where: { id: last?.id ?? "" },
    });
    const seq = Buffer.alloc(8);
    seq.writeBigUInt64BE(row.seq);
    const bytes = Buffer.from(cursor, "base64url");
    for (const encoding of [seq, seq.subarray(4), Buffer.from(row.seq.toString())]) {
      expect(bytes.includes(encoding)).toBe(false);
    }
    expect((await read(owner, `?before=${row.seq}`)).status).toBe(400);
    // The same page read again gives another cursor for the same place.
    const again = await page(owner, "?limit=2");
    expect(again.next).not.toBe(cursor);
    const older = await page(owner, `?limit=2&before=${cursor}`);
    const olderAgain = await page(owner, `?limit=2&before=${again.next}`);
    expect(older.events).toEqual(olderAgain.events);
    expect(older.events.map((event) => event.type)).toEqual([
      "client.secret_rotated",
      "client.secret_rotated",
    ]);
    const rest = await page(owner, `?limit=2&before=${older.next}`);
    expect(rest.events.map((event) => event.type)).toEqual(["client.created", "partner.created"]);
    expect(rest.next).toBeNull();
  });

  it("answers 400 to a cursor of another partner, of the owner's other partner, or tampered with", async () => {
    const owner = await ownerOf(2);
    const other = await ownerOf();
    const [one, two] = owner.clients;
    for (const client of [one, two, other.clients[0]]) {
      for (let i = 0; i < 3; i += 1) {
        await rotateClientSecret(
          client?.clientId ?? "",
          new Date(),
          asUser(owner.user.id, address()),
        );
      }
    }
    const cursor = (await page(owner, `?partner=${one?.partnerId}&limit=1`)).next ?? "";
    expect(
      (await page(owner, `?partner=${one?.partnerId}&limit=1&before=${cursor}`)).events,
    ).toHaveLength(1);

    const flip = (text: string, at: number) =>
      text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
    const refused: [TestOwner, string][] = [
      [other, `?before=${cursor}`],
      [owner, `?partner=${two?.partnerId}&before=${cursor}`],
      [owner, `?partner=${one?.partnerId}&before=${flip(cursor, 0)}`],
      [owner, `?partner=${one?.partnerId}&before=${flip(cursor, cursor.length - 1)}`],
      [owner, `?partner=${one?.partnerId}&before=${flip(cursor, 20)}`],
      [owner, `?partner=${one?.partnerId}&before=${cursor.slice(0, -2)}`],
      [owner, `?partner=${one?.partnerId}&before=${cursor}AA`],
      [owner, `?partner=${one?.partnerId}&before=12`],
    ];
    for (const [reader, query] of refused) {
      const response = await read(reader, query);
      expect(response.status, query).toBe(400);
      expect(await response.json()).toMatchObject({
        error: "invalid_request",
        error_description: expect.any(String),
      });
    }
  });
});
