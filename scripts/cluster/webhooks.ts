import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { db } from "../../lib/db/client";
import { openJobsForReading } from "../../lib/jobs/boss";
import { DEFAULT_MAIL_RETRY } from "../../lib/jobs/mail";
import { setJobsRuntime } from "../../lib/jobs/runtime";
import { createPartner } from "../../lib/partners/partners";
import { createEndpoint } from "../../lib/webhooks/endpoints";
import { writeEvent } from "../../lib/webhooks/events";
import { uniqueEmail } from "../../test/oauth-fixtures";
import type { ClusterContext } from "./types";

/**
 * Webhook delivery across instances (docs/events.md#retries): events are
 * recorded here, on the cluster's database, and queued on its job queue; the
 * instances' `webhook` workers deliver them to a receiver on loopback (the
 * instances run with WEBHOOKS_ALLOW_LOOPBACK=true on their loopback ISSUER
 * and a retry schedule of seconds). Every event reaches the receiver once,
 * whichever instance took it, signed so that the Standard Webhooks library
 * verifies it; a receiver answering 500 first gets the retry, with the same
 * `webhook-id`, once.
 */

const EVENTS = 20;
const RETRIED_EVENTS = 5;
const POLL_MS = 250;

interface Received {
  path: string;
  id: string;
  status: number;
  verified: boolean;
}

export async function webhooksDeliveredOnce(
  context: ClusterContext,
  databaseUrl: string,
): Promise<void> {
  const { check, log } = context;
  const secrets = new Map<string, string>();
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      const headers: IncomingHttpHeaders = request.headers;
      const id = String(headers["webhook-id"]);
      let verified = false;
      try {
        new Webhook(secrets.get(path) ?? "").verify(Buffer.concat(chunks).toString("utf8"), {
          "webhook-id": id,
          "webhook-timestamp": String(headers["webhook-timestamp"]),
          "webhook-signature": String(headers["webhook-signature"]),
        });
        verified = true;
      } catch {
        verified = false;
      }
      // `/flaky` fails each event's first delivery attempt.
      const seen = received.some((entry) => entry.path === path && entry.id === id);
      const status = path === "/flaky" && !seen ? 500 : 200;
      received.push({ path, id, status, verified });
      response.writeHead(status).end(status === 200 ? "ok" : "not yet");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const boss = await openJobsForReading(databaseUrl);
  // This process queues the deliveries it records; only the instances run them.
  setJobsRuntime({ boss, mailRetry: DEFAULT_MAIL_RETRY });
  try {
    const endpoints: Record<"/ok" | "/flaky", string> = { "/ok": "", "/flaky": "" };
    for (const path of ["/ok", "/flaky"] as const) {
      const partner = await createPartner({
        name: `Cluster hooks ${path.slice(1)} ${Date.now().toString(36)}`,
        ownerEmail: uniqueEmail("cluster-hooks"),
      });
      const { secret } = await createEndpoint(partner.id, {
        url: `http://127.0.0.1:${port}${path}`,
        eventTypes: ["access.ended"],
      });
      secrets.set(path, secret);
      endpoints[path] = partner.id;
    }
    const record = (partnerId: string, index: number) =>
      writeEvent({
        partnerId,
        type: "access.ended",
        data: { client_id: "obc_cluster", user: `wl:cluster:connect:${index}`, reason: "person" },
      });
    const written = await Promise.all([
      ...Array.from({ length: EVENTS }, (_, index) => record(endpoints["/ok"], index)),
      ...Array.from({ length: RETRIED_EVENTS }, (_, index) => record(endpoints["/flaky"], index)),
    ]);
    const deliveryIds = written.flatMap((event) => event?.deliveryIds ?? []);
    check(
      deliveryIds.length === EVENTS + RETRIED_EVENTS,
      `${deliveryIds.length} deliveries recorded`,
    );
    const started = Date.now();
    const deadline = started + 60_000;
    let pending = deliveryIds.length;
    while (pending > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      pending = await db().webhookDelivery.count({
        where: { id: { in: deliveryIds }, status: { not: "delivered" } },
      });
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    check(pending === 0, `${pending} deliveries not delivered after 60 s`);
    // Anything sent twice would arrive by now.
    await new Promise((resolve) => setTimeout(resolve, 3000));

    const eventIds = (from: number, to: number) =>
      written
        .slice(from, to)
        .map((event) => event?.eventId ?? "")
        .sort();
    const ok = received.filter((entry) => entry.path === "/ok");
    check(
      JSON.stringify(ok.map((entry) => entry.id).sort()) === JSON.stringify(eventIds(0, EVENTS)),
      `/ok received ${ok.length} requests for ${new Set(ok.map((entry) => entry.id)).size} webhook-ids, not each of the ${EVENTS} events once`,
    );
    const flaky = received.filter((entry) => entry.path === "/flaky");
    const flakyIds = eventIds(EVENTS, EVENTS + RETRIED_EVENTS);
    const twice = flakyIds.every(
      (id) =>
        flaky
          .filter((entry) => entry.id === id)
          .map((entry) => entry.status)
          .join() === "500,200",
    );
    check(
      twice && flaky.length === 2 * RETRIED_EVENTS,
      `/flaky received ${flaky.length} requests: ${JSON.stringify(flaky.map((entry) => [entry.id, entry.status]))}`,
    );
    check(
      received.every((entry) => entry.verified),
      `${received.filter((entry) => !entry.verified).length} requests failed Standard Webhooks verification`,
    );
    const attempts = await db().webhookDelivery.groupBy({
      by: ["attempts"],
      where: { id: { in: deliveryIds } },
      _count: { _all: true },
    });
    log(
      `${EVENTS} events delivered once each and ${RETRIED_EVENTS} retried after a 500 with the same webhook-id, all in ${seconds} s; attempts per delivery: ${attempts.map((row) => `${row.attempts}×${row._count._all}`).join(", ")}; every signature verified by standardwebhooks`,
    );
  } finally {
    setJobsRuntime(null);
    await boss.stop({ graceful: false }).catch(() => undefined);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
