import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, disconnectDb } from "../db/client";
import { getEnv, setSetting } from "../env";
import type { ResolveHost } from "../http/public-address";
import { startJobs, stopJobs } from "../jobs/boss";
import { createPartner } from "../partners/partners";
import { partnerTenantOf } from "../../test/bank-data";
import {
  createTestClient,
  ISSUER,
  mintApiKey,
  signedInCookie,
  uniqueEmail,
} from "../../test/oauth-fixtures";
import { handleEndAccess } from "../account/handlers";
import { accountCsrfToken } from "../account/session";
import { findSessionUser, type SignedInUser } from "../auth/sessions";
import { sweepOverdueDeliveries } from "./deliver";
import { createEndpoint, replayDelivery, rotateSecret } from "./endpoints";
import { writeEvent } from "./events";

/**
 * Webhook delivery end to end: the job queue (pg-boss) on the test run's
 * PostgreSQL, a real HTTP receiver on loopback that checks every signature
 * with the maintained Standard Webhooks library, and a resolver the test
 * changes to play a name whose DNS answer moves. Loopback receivers are
 * allowed as in any local run (WEBHOOKS_ALLOW_LOOPBACK with a loopback
 * ISSUER); the retry schedule is seconds long here.
 */

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Which of the endpoint's secrets verified it (by their index in `secrets`). */
  verifiedBy: number[];
}

/** Per path: what the receiver answers to the 1st, 2nd, … request (the last repeats). */
type Script = Array<"ok" | "fail" | "hang" | "redirect" | "big">;

const scripts = new Map<string, Script>();
const secrets = new Map<string, string[]>();
const received: Received[] = [];
let server: Server;
let port = 0;
const dns = new Map<string, string>();

/** Names whose answer moves to a private address right after it was given (DNS rebinding). */
const rebinding = new Set<string>();
let lookups = 0;

const resolver: ResolveHost = async (hostname) => {
  lookups += 1;
  const address = dns.get(hostname);
  if (!address) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
  if (rebinding.has(hostname)) dns.set(hostname, "10.0.0.5");
  return [{ address, family: 4 }];
};

function answer(response: ServerResponse, step: Script[number]) {
  if (step === "hang") return; // never answers; the attempt's time limit ends it
  if (step === "redirect") {
    response.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` }).end();
  } else if (step === "fail") {
    response.writeHead(500, { "content-type": "text/plain" }).end("receiver broke");
  } else if (step === "big") {
    response.writeHead(200, { "content-type": "text/plain" }).end("x".repeat(64 * 1024));
  } else {
    response.writeHead(200).end("ok");
  }
}

beforeAll(async () => {
  setSetting("WEBHOOKS_ALLOW_LOOPBACK", "true");
  setSetting("WEBHOOKS_RETRY_SCHEDULE", "1,1,1");
  setSetting("WEBHOOKS_ATTEMPT_TIMEOUT_MS", "1500");
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      const body = Buffer.concat(chunks).toString("utf8");
      const verifiedBy = (secrets.get(path) ?? []).flatMap((secret, index) => {
        try {
          new Webhook(secret).verify(body, {
            "webhook-id": String(request.headers["webhook-id"]),
            "webhook-timestamp": String(request.headers["webhook-timestamp"]),
            "webhook-signature": String(request.headers["webhook-signature"]),
          });
          return [index];
        } catch {
          return [];
        }
      });
      const count = received.filter((entry) => entry.path === path).length;
      received.push({ path, headers: request.headers, body, verifiedBy });
      const script = scripts.get(path) ?? ["ok"];
      answer(response, script[Math.min(count, script.length - 1)] ?? "ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  await startJobs({
    databaseUrl: getEnv().databaseUrl,
    pollingIntervalSeconds: 0.5,
    webhooks: { lookup: resolver },
  });
});

afterAll(async () => {
  await stopJobs();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await disconnectDb();
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 25_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let pathCount = 0;

/** A partner with one endpoint on the receiver at a fresh path, answering as scripted. */
async function receiverEndpoint(script: Script, options: { host?: string; locale?: string } = {}) {
  const ownerEmail = uniqueEmail("hook-owner");
  const partner = await createPartner({
    name: `Receiver ${Math.random().toString(36).slice(2, 8)}`,
    ownerEmail,
  });
  if (options.locale) {
    await db().user.update({ where: { email: ownerEmail }, data: { locale: options.locale } });
  }
  pathCount += 1;
  const path = `/hook-${pathCount}`;
  scripts.set(path, script);
  const url = `http://${options.host ?? "127.0.0.1"}:${port}${path}`;
  const { endpoint, secret } = await createEndpoint(
    partner.id,
    { url, eventTypes: ["access.ended", "connection.expired"] },
    resolver,
  );
  secrets.set(path, [secret]);
  return { partner, endpoint, secret, path, ownerEmail };
}

const eventFor = (partnerId: string) =>
  writeEvent({
    partnerId,
    type: "access.ended",
    data: { client_id: "obc_hooks", user: "wl:hooks:connect:person", reason: "person" },
  });

const deliveryOf = (id: string) =>
  db().webhookDelivery.findUniqueOrThrow({
    where: { id },
    include: { attemptsLog: { orderBy: { attempt: "asc" } } },
  });

const at = (path: string) => received.filter((entry) => entry.path === path);

describe("webhook delivery", () => {
  it("a person ending a partner's access at My access reaches its receiver, signed, within seconds", async () => {
    const client = await createTestClient();
    const partnerId = client.partnerId ?? "";
    pathCount += 1;
    const path = `/hook-${pathCount}`;
    scripts.set(path, ["ok"]);
    const { secret } = await createEndpoint(
      partnerId,
      { url: `http://127.0.0.1:${port}${path}`, eventTypes: ["access.ended"] },
      resolver,
    );
    secrets.set(path, [secret]);
    const { user } = await mintApiKey(client);
    const tenant = await partnerTenantOf(client, user);
    const cookie = await signedInCookie(user.id);
    const session = (await findSessionUser(cookie.slice(cookie.indexOf("=") + 1))) as SignedInUser;

    const ended = await handleEndAccess(
      new Request(`${ISSUER}/account/access/end`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: ISSUER, Cookie: cookie },
        body: JSON.stringify({ csrf: accountCsrfToken(session, "end-access"), partnerId }),
      }),
    );
    expect(ended.status).toBe(200);
    // Queued when the access ended, delivered by the next poll of the queue (half a second here).
    const heard = await until(
      () => Promise.resolve(at(path)),
      (entries) => entries.length > 0,
    );
    expect(heard).toHaveLength(1);
    expect(heard[0]?.verifiedBy).toEqual([0]);
    expect(JSON.parse(heard[0]?.body ?? "{}")).toMatchObject({
      type: "access.ended",
      data: { client_id: client.clientId, user: tenant.subject, reason: "person" },
    });
  });

  it("POSTs the event's JSON, signed so that standardwebhooks verifies it, within seconds", async () => {
    const { partner, path } = await receiverEndpoint(["ok"]);
    const written = await eventFor(partner.id);
    const deliveryId = written?.deliveryIds[0] ?? "";
    const delivery = await until(
      () => deliveryOf(deliveryId),
      (row) => row.status !== "pending",
    );
    expect(delivery).toMatchObject({ status: "delivered", attempts: 1, lastResponseCode: 200 });
    expect(delivery.attemptsLog).toHaveLength(1);
    expect(delivery.attemptsLog[0]).toMatchObject({ responseCode: 200, error: null });
    const [request] = at(path);
    expect(request?.verifiedBy).toEqual([0]);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.headers["webhook-id"]).toBe(written?.eventId);
    expect(JSON.parse(request?.body ?? "{}")).toMatchObject({
      type: "access.ended",
      data: { client_id: "obc_hooks", reason: "person" },
    });
  });

  it("a receiver answering 500 then 200 is retried and gets the event once, with the same webhook-id", async () => {
    const { partner, path } = await receiverEndpoint(["fail", "ok"]);
    const written = await eventFor(partner.id);
    const delivery = await until(
      () => deliveryOf(written?.deliveryIds[0] ?? ""),
      (row) => row.status !== "pending",
    );
    expect(delivery).toMatchObject({ status: "delivered", attempts: 2, lastResponseCode: 200 });
    expect(delivery.attemptsLog.map((attempt) => [attempt.responseCode, attempt.error])).toEqual([
      [500, "http_status"],
      [200, null],
    ]);
    expect(delivery.attemptsLog[0]?.responseBody).toBe("receiver broke");
    const requests = at(path);
    expect(requests).toHaveLength(2);
    expect(new Set(requests.map((request) => request.headers["webhook-id"]))).toEqual(
      new Set([written?.eventId]),
    );
    expect(requests.every((request) => request.verifiedBy.length === 1)).toBe(true);
    // Nothing more arrives once it was delivered.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(at(path)).toHaveLength(2);
  });

  it("a receiver that hangs is cut off at the attempt's time limit and retried", async () => {
    const { partner, path } = await receiverEndpoint(["hang", "ok"]);
    const written = await eventFor(partner.id);
    const delivery = await until(
      () => deliveryOf(written?.deliveryIds[0] ?? ""),
      (row) => row.status !== "pending",
    );
    expect(delivery.status).toBe("delivered");
    const [first, second] = delivery.attemptsLog;
    expect(first).toMatchObject({ attempt: 1, responseCode: null, error: "timeout" });
    expect(first?.latencyMs).toBeGreaterThanOrEqual(1400);
    expect(first?.latencyMs).toBeLessThan(5000);
    expect(second).toMatchObject({ attempt: 2, responseCode: 200 });
    expect(at(path).map((request) => request.headers["webhook-id"])).toEqual([
      written?.eventId,
      written?.eventId,
    ]);
  });

  it("a redirect is never followed: it is a failed attempt", async () => {
    const { partner, path } = await receiverEndpoint(["redirect", "ok"]);
    const written = await eventFor(partner.id);
    const delivery = await until(
      () => deliveryOf(written?.deliveryIds[0] ?? ""),
      (row) => row.status !== "pending",
    );
    expect(delivery.attemptsLog[0]).toMatchObject({ responseCode: 302, error: "redirect" });
    expect(delivery.status).toBe("delivered");
    expect(at("/elsewhere")).toHaveLength(0);
    expect(at(path)).toHaveLength(2);
  });

  it("reads at most 1 KiB of an answer", async () => {
    const { partner } = await receiverEndpoint(["big"]);
    const written = await eventFor(partner.id);
    const delivery = await until(
      () => deliveryOf(written?.deliveryIds[0] ?? ""),
      (row) => row.status !== "pending",
    );
    expect(delivery.status).toBe("delivered");
    expect(delivery.attemptsLog[0]?.responseBody).toBe("x".repeat(1024));
  });

  it("a name whose DNS answer changes to a private address after the save is refused at delivery", async () => {
    const host = `hooks-${Math.random().toString(36).slice(2, 8)}.example`;
    dns.set(host, "127.0.0.1");
    const { partner, path } = await receiverEndpoint(["ok"], { host });
    // The name now points into the private network: nothing may be sent there.
    dns.set(host, "10.0.0.5");
    const written = await eventFor(partner.id);
    const deliveryId = written?.deliveryIds[0] ?? "";
    const refused = await until(
      () => deliveryOf(deliveryId),
      (row) => row.attempts >= 1,
    );
    expect(refused.attemptsLog[0]).toMatchObject({ responseCode: null, error: "address_refused" });
    expect(at(path)).toHaveLength(0);
    // Back on an allowed address, the next attempt delivers.
    dns.set(host, "127.0.0.1");
    const delivery = await until(
      () => deliveryOf(deliveryId),
      (row) => row.status !== "pending",
    );
    expect(delivery.status).toBe("delivered");
    expect(at(path)).toHaveLength(1);
  });

  it("connects to exactly the address it checked, even when the name's answer changes right after", async () => {
    const host = `rebind-${Math.random().toString(36).slice(2, 8)}.example`;
    dns.set(host, "127.0.0.1");
    const { partner, path } = await receiverEndpoint(["ok"], { host });
    dns.set(host, "127.0.0.1");
    rebinding.add(host);
    const before = lookups;
    const written = await eventFor(partner.id);
    const delivery = await until(
      () => deliveryOf(written?.deliveryIds[0] ?? ""),
      (row) => row.status !== "pending",
    );
    // One lookup, checked and used: the socket asked no resolver again (a second answer
    // would have been 10.0.0.5, and the system resolver knows no such name).
    expect(delivery.status).toBe("delivered");
    expect(lookups - before).toBe(1);
    expect(at(path)).toHaveLength(1);
    expect(dns.get(host)).toBe("10.0.0.5");
  });

  it("sends nothing when the endpoint's secret no longer opens", async () => {
    const { partner, endpoint, path } = await receiverEndpoint(["ok"]);
    await db().webhookEndpoint.update({
      where: { id: endpoint.id },
      data: { secretSealed: "A".repeat(80) },
    });
    const written = await eventFor(partner.id);
    const delivery = await until(
      () => deliveryOf(written?.deliveryIds[0] ?? ""),
      (row) => row.attempts >= 1,
    );
    expect(delivery.attemptsLog[0]).toMatchObject({
      responseCode: null,
      error: "secret_unreadable",
    });
    expect(at(path)).toHaveLength(0);
  });

  it("an endpoint failing through the whole schedule is disabled and its owners mailed in their language", async () => {
    const { partner, endpoint, path, ownerEmail } = await receiverEndpoint(["fail"], {
      locale: "de",
    });
    const written = await eventFor(partner.id);
    const delivery = await until(
      () => deliveryOf(written?.deliveryIds[0] ?? ""),
      (row) => row.status !== "pending",
    );
    // Four attempts: the first and one after each of the schedule's three waits.
    expect(delivery).toMatchObject({ status: "failed", attempts: 4, nextAttemptAt: null });
    expect(at(path)).toHaveLength(4);
    const row = await until(
      () => db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } }),
      (found) => found.disabledAt !== null,
    );
    expect(row.disabledReason).toBe("failing");
    const mails = await until(
      () => db().outboxMessage.findMany({ where: { to: ownerEmail } }),
      (found) => found.length > 0,
    );
    expect(mails).toHaveLength(1);
    expect(mails[0]?.subject).toContain("Webhook-Endpunkt wurde abgeschaltet");
    expect(mails[0]?.text).toContain(endpoint.url);

    // A disabled endpoint gets nothing: the next event finds no enabled endpoint.
    expect(await eventFor(partner.id)).toBeNull();
    expect(at(path)).toHaveLength(4);
  });

  it("after a rotation both the old and the new secret verify each delivery for 24 hours", async () => {
    const { partner, endpoint, path, secret } = await receiverEndpoint(["ok"]);
    const rotated = await rotateSecret(partner.id, endpoint.id);
    secrets.set(path, [secret, rotated?.secret ?? ""]);
    const written = await eventFor(partner.id);
    await until(
      () => deliveryOf(written?.deliveryIds[0] ?? ""),
      (row) => row.status !== "pending",
    );
    const [request] = at(path);
    expect(String(request?.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(request?.verifiedBy).toEqual([0, 1]);
  });

  it("a replay is a new delivery of the same event, with the same webhook-id", async () => {
    const { partner, path } = await receiverEndpoint(["ok"]);
    const written = await eventFor(partner.id);
    const first = await until(
      () => deliveryOf(written?.deliveryIds[0] ?? ""),
      (row) => row.status !== "pending",
    );
    const replay = await replayDelivery(partner.id, first.id);
    await until(
      () => deliveryOf(replay?.deliveryId ?? ""),
      (row) => row.status !== "pending",
    );
    const requests = at(path);
    expect(requests).toHaveLength(2);
    expect(requests[1]?.headers["webhook-id"]).toBe(written?.eventId);
    expect(requests[1]?.body).toBe(requests[0]?.body);
  });

  it("the sweep queues a pending delivery whose job was lost", async () => {
    const { partner, endpoint, path } = await receiverEndpoint(["ok"]);
    // An event written as if its job had been lost two minutes ago.
    const event = await db().webhookEvent.create({
      data: {
        id: `msg_lost_${pathCount}`,
        partnerId: partner.id,
        type: "access.ended",
        payload: { type: "access.ended", timestamp: new Date().toISOString(), data: {} },
      },
    });
    const lost = await db().webhookDelivery.create({
      data: {
        eventId: event.id,
        endpointId: endpoint.id,
        nextAttemptAt: new Date(Date.now() - 2 * 60_000),
      },
    });
    expect(await sweepOverdueDeliveries()).toBeGreaterThanOrEqual(1);
    const delivery = await until(
      () => deliveryOf(lost.id),
      (row) => row.status !== "pending",
    );
    expect(delivery.status).toBe("delivered");
    expect(at(path)).toHaveLength(1);
  });
});
