import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as deliveriesRoute from "../../app/api/partner/webhooks/[endpointId]/deliveries/route";
import * as replayRoute from "../../app/api/partner/webhooks/[endpointId]/deliveries/[deliveryId]/replay/route";
import * as rotateRoute from "../../app/api/partner/webhooks/[endpointId]/rotate-secret/route";
import * as endpointRoute from "../../app/api/partner/webhooks/[endpointId]/route";
import * as testRoute from "../../app/api/partner/webhooks/[endpointId]/test/route";
import * as webhooksRoute from "../../app/api/partner/webhooks/route";
import { ISSUER, mintApiKey } from "../../test/oauth-fixtures";
import { ownerOf, type TestOwner } from "../../test/partner-owners";
import { startRouteServer, type RouteServer } from "../../test/route-server";
import { db } from "../db/client";
import { MAX_ENDPOINTS_PER_PARTNER } from "../webhooks/settings";
import { fieldMessage } from "./field-errors";
import type { WebhookDeliveryWire, WebhookEndpointWire } from "./webhook-wire";

/**
 * The dashboard's webhook endpoints over real HTTP (docs/events.md): the
 * owner's session and CSRF token, field errors in the dashboard's wire shape,
 * the signing secret only at creation and rotation, and nothing of another
 * partner's reachable.
 */

let server: RouteServer;
beforeAll(async () => {
  server = await startRouteServer({
    "/api/partner/webhooks": webhooksRoute,
    "/api/partner/webhooks/[endpointId]": endpointRoute,
    "/api/partner/webhooks/[endpointId]/rotate-secret": rotateRoute,
    "/api/partner/webhooks/[endpointId]/deliveries": deliveriesRoute,
    "/api/partner/webhooks/[endpointId]/test": testRoute,
    "/api/partner/webhooks/[endpointId]/deliveries/[deliveryId]/replay": replayRoute,
  });
});
afterAll(() => server.close());

/** A public address (an IP literal, so no DNS is asked): accepted, never delivered to here. */
const PUBLIC_URL = "https://8.8.8.8/webhooks/bank-connect";
const TYPES = ["access.granted", "access.ended"];

type Person = Pick<TestOwner, "cookie" | "csrf">;

function call(
  person: Person,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string | null> = {},
) {
  const merged: Record<string, string> = {
    Cookie: person.cookie,
    Origin: ISSUER,
    "X-CSRF-Token": person.csrf,
    ...(body === undefined ? {} : { "Content-Type": "application/json" }),
  };
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) delete merged[name];
    else merged[name] = value;
  }
  return fetch(server.origin + path, {
    method,
    headers: merged,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const path = (id: string, tail = "") => `/api/partner/webhooks/${id}${tail}`;

async function created(owner: TestOwner, body: unknown = { url: PUBLIC_URL, eventTypes: TYPES }) {
  const response = await call(owner, "POST", "/api/partner/webhooks", body);
  expect(response.status).toBe(201);
  return (await response.json()) as WebhookEndpointWire & { secret: string };
}

async function listed(owner: TestOwner): Promise<WebhookEndpointWire[]> {
  const response = await call(owner, "GET", "/api/partner/webhooks");
  expect(response.status).toBe(200);
  expect(response.headers.get("cache-control")).toContain("no-store");
  return (await response.json()) as WebhookEndpointWire[];
}

async function deliveries(owner: TestOwner, id: string): Promise<WebhookDeliveryWire[]> {
  const response = await call(owner, "GET", path(id, "/deliveries"));
  expect(response.status).toBe(200);
  return (await response.json()) as WebhookDeliveryWire[];
}

interface Refusal {
  error: string;
  error_description: string;
  violations: { field: string; code: string; message: string }[];
}

async function violationsOf(response: Response) {
  expect(response.status).toBe(400);
  const body = (await response.json()) as Refusal;
  expect(body.error).toBe("invalid_webhook_endpoint");
  expect(body.error_description).toBe(body.violations.map((v) => v.message).join("; "));
  return body.violations.map(({ field, code }) => ({ field, code }));
}

describe("webhook endpoints in the partner dashboard API", () => {
  it("adds an endpoint and shows its signing secret in that answer only", async () => {
    const owner = await ownerOf();
    const endpoint = await created(owner);
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      url: PUBLIC_URL,
      eventTypes: TYPES,
      enabled: true,
      disabledReason: null,
      disabledAt: null,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      previousSecretExpiresAt: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{32,}$/) as unknown,
    });
    const list = await listed(owner);
    const { secret: _secret, ...shown } = endpoint;
    expect(list).toEqual([shown]);
    expect(JSON.stringify(list)).not.toContain(endpoint.secret);
    expect(JSON.stringify(list)).not.toMatch(/secret"|whsec_|sealed/i);
  });

  it("refuses a bad, plain-http or private address and no event types, each named for its field", async () => {
    const owner = await ownerOf();
    const post = (body: unknown) => call(owner, "POST", "/api/partner/webhooks", body);
    expect(await violationsOf(await post({ url: "not a url", eventTypes: TYPES }))).toEqual([
      { field: "url", code: "invalid_url" },
    ]);
    expect(
      await violationsOf(await post({ url: "http://8.8.8.8/hook", eventTypes: TYPES })),
    ).toEqual([{ field: "url", code: "not_https" }]);
    for (const url of [
      "https://10.0.0.7/hook",
      "https://127.0.0.1/hook",
      "https://[::1]/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://localhost/hook",
    ]) {
      expect(await violationsOf(await post({ url, eventTypes: TYPES })), url).toEqual([
        { field: "url", code: "private_address" },
      ]);
    }
    expect(
      await violationsOf(await post({ url: "https://a:b@8.8.8.8/hook", eventTypes: TYPES })),
    ).toEqual([{ field: "url", code: "credentials" }]);
    expect(await violationsOf(await post({ url: PUBLIC_URL, eventTypes: [] }))).toEqual([
      { field: "eventTypes", code: "required" },
    ]);
    expect(
      await violationsOf(await post({ url: PUBLIC_URL, eventTypes: ["account.hacked"] })),
    ).toEqual([{ field: "eventTypes", code: "unknown_event_type" }]);
    expect(await violationsOf(await post({}))).toEqual([
      { field: "url", code: "required" },
      { field: "eventTypes", code: "required" },
    ]);
    expect(
      await violationsOf(await post({ url: PUBLIC_URL, eventTypes: TYPES, secret: "mine" })),
    ).toEqual([{ field: "secret", code: "unknown_field" }]);
    expect(await violationsOf(await post("[1,2]"))).toEqual([
      { field: "body", code: "invalid_body" },
    ]);
    expect(await listed(owner)).toEqual([]);
    // The screens say each in the person's words, next to the field it names.
    expect(fieldMessage("webhook", { field: "url", code: "private_address" })).toMatchObject({
      input: "url",
      key: "webhookPrivate",
    });
    expect(fieldMessage("webhook", { field: "eventTypes", code: "required" })).toMatchObject({
      input: "eventTypes",
      key: "webhookNoEvents",
    });
  });

  it("is the owner's only: no session 401, an API key 403, a forged token 403, another owner's ?partner= 403", async () => {
    const owner = await ownerOf();
    const other = await ownerOf();
    const endpoint = await created(owner);
    expect((await call({ cookie: "", csrf: "" }, "GET", "/api/partner/webhooks")).status).toBe(401);
    const { key } = await mintApiKey(owner.clients[0]!);
    const withKey = await fetch(`${server.origin}/api/partner/webhooks`, {
      headers: { "X-Api-Key": key },
    });
    expect(withKey.status).toBe(403);
    expect(withKey.headers.get("www-authenticate")).toBe('Bearer error="insufficient_scope"');
    const forged: Record<string, string | null>[] = [
      { "X-CSRF-Token": null },
      { "X-CSRF-Token": other.csrf },
      { Origin: "https://evil.example" },
    ];
    for (const headers of forged) {
      const refused = await call(
        owner,
        "POST",
        "/api/partner/webhooks",
        {
          url: PUBLIC_URL,
          eventTypes: TYPES,
        },
        headers,
      );
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect((await call(owner, "DELETE", path(endpoint.id), undefined, headers)).status).toBe(403);
    }
    const asked = await call(other, "GET", `/api/partner/webhooks?partner=${owner.partnerId}`);
    expect(asked.status).toBe(403);
    expect(await listed(owner)).toHaveLength(1);
  });

  it("answers 404 to another partner's owner for every action on an endpoint or delivery, and changes nothing", async () => {
    const owner = await ownerOf();
    const other = await ownerOf();
    const endpoint = await created(owner);
    const test = await call(owner, "POST", path(endpoint.id, "/test"));
    expect(test.status).toBe(202);
    const { deliveryId } = (await test.json()) as { deliveryId: string };
    const attempts: [string, string, unknown?][] = [
      ["PATCH", path(endpoint.id), { enabled: false }],
      ["PATCH", path(endpoint.id), { url: "https://1.1.1.1/stolen" }],
      ["DELETE", path(endpoint.id)],
      ["POST", path(endpoint.id, "/rotate-secret")],
      ["GET", path(endpoint.id, "/deliveries")],
      ["POST", path(endpoint.id, "/test")],
      ["POST", path(endpoint.id, `/deliveries/${deliveryId}/replay`)],
    ];
    for (const [method, target, body] of attempts) {
      const response = await call(other, method, target, body);
      expect(response.status, `${method} ${target}`).toBe(404);
      expect(((await response.json()) as { error: string }).error).toBe("not_found");
    }
    // Another partner's endpoint id with one's own delivery id, and ids that are not ids.
    const mine = await created(other);
    const crossed = await call(other, "POST", path(mine.id, `/deliveries/${deliveryId}/replay`));
    expect(crossed.status).toBe(404);
    for (const id of ["not-a-uuid", "00000000-0000-0000-0000-000000000000"]) {
      expect((await call(owner, "PATCH", path(id), { enabled: false })).status).toBe(404);
      expect((await call(owner, "GET", path(id, "/deliveries"))).status).toBe(404);
    }
    const [still] = await listed(owner);
    expect(still).toMatchObject({ url: PUBLIC_URL, enabled: true, previousSecretExpiresAt: null });
    expect(await deliveries(owner, endpoint.id)).toHaveLength(1);
    expect(await deliveries(other, mine.id)).toEqual([]);
  });

  it("rotates the secret: the new one shown once, the previous one valid for 24 hours", async () => {
    const owner = await ownerOf();
    const endpoint = await created(owner);
    const before = Date.now();
    const response = await call(owner, "POST", path(endpoint.id, "/rotate-secret"));
    expect(response.status).toBe(200);
    const rotated = (await response.json()) as { secret: string; previousSecretExpiresAt: string };
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const expires = Date.parse(rotated.previousSecretExpiresAt);
    expect(expires - before).toBeGreaterThanOrEqual(24 * 3600_000 - 5_000);
    expect(expires - before).toBeLessThanOrEqual(24 * 3600_000 + 60_000);
    const [listedEndpoint] = await listed(owner);
    expect(listedEndpoint?.previousSecretExpiresAt).toBe(rotated.previousSecretExpiresAt);
    expect(JSON.stringify(listedEndpoint)).not.toContain(rotated.secret);
  });

  it("edits the address and event types, turns an endpoint off and on again, and checks the new address", async () => {
    const owner = await ownerOf();
    const endpoint = await created(owner);
    const patch = (body: unknown) => call(owner, "PATCH", path(endpoint.id), body);
    const off = await patch({ enabled: false });
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({
      enabled: false,
      disabledReason: "partner",
      disabledAt: expect.any(String) as unknown,
    });
    const edited = await patch({
      enabled: true,
      url: "https://1.1.1.1/hooks",
      eventTypes: ["connection.expiring"],
    });
    expect(await edited.json()).toMatchObject({
      enabled: true,
      disabledReason: null,
      url: "https://1.1.1.1/hooks",
      eventTypes: ["connection.expiring"],
    });
    expect(await violationsOf(await patch({ url: "https://192.168.1.10/hooks" }))).toEqual([
      { field: "url", code: "private_address" },
    ]);
    expect(await violationsOf(await patch({ eventTypes: [] }))).toEqual([
      { field: "eventTypes", code: "required" },
    ]);
    expect(await violationsOf(await patch({ enabled: "yes" }))).toEqual([
      { field: "enabled", code: "invalid_type" },
    ]);
    const [after] = await listed(owner);
    expect(after).toMatchObject({ url: "https://1.1.1.1/hooks", enabled: true });
  });

  it("sends a test event, lists deliveries with their attempts, and replays one with the same event", async () => {
    const owner = await ownerOf();
    const endpoint = await created(owner);
    expect(await deliveries(owner, endpoint.id)).toEqual([]);
    const sent = await call(owner, "POST", path(endpoint.id, "/test"));
    expect(sent.status).toBe(202);
    const { deliveryId, eventId } = (await sent.json()) as { deliveryId: string; eventId: string };
    // An attempt as the worker records it: the receiver answered 500 after 120 ms.
    const at = new Date();
    const retryAt = new Date(at.getTime() + 300_000);
    await db().webhookAttempt.create({
      data: { deliveryId, attempt: 1, at, responseCode: 500, latencyMs: 120, responseBody: "no" },
    });
    await db().webhookDelivery.update({
      where: { id: deliveryId },
      data: {
        attempts: 1,
        lastAttemptAt: at,
        lastResponseCode: 500,
        lastLatencyMs: 120,
        nextAttemptAt: retryAt,
      },
    });
    const [delivery] = await deliveries(owner, endpoint.id);
    expect(delivery).toEqual({
      id: deliveryId,
      eventId,
      eventType: "webhook.test",
      status: "pending",
      attempts: 1,
      createdAt: expect.any(String) as unknown,
      lastAttemptAt: at.toISOString(),
      nextAttemptAt: retryAt.toISOString(),
      responseCode: 500,
      latencyMs: 120,
      error: null,
      attemptLog: [
        { attempt: 1, at: at.toISOString(), responseCode: 500, latencyMs: 120, error: null },
      ],
    });
    const replayed = await call(
      owner,
      "POST",
      path(endpoint.id, `/deliveries/${deliveryId}/replay`),
    );
    expect(replayed.status).toBe(202);
    const replay = (await replayed.json()) as { deliveryId: string; eventId: string };
    expect(replay.eventId).toBe(eventId);
    expect(replay.deliveryId).not.toBe(deliveryId);
    const after = await deliveries(owner, endpoint.id);
    expect(after.map((one) => one.id).sort()).toEqual([deliveryId, replay.deliveryId].sort());
    expect(new Set(after.map((one) => one.eventId))).toEqual(new Set([eventId]));
    const limited = await call(owner, "GET", path(endpoint.id, "/deliveries?limit=1"));
    expect(((await limited.json()) as unknown[]).length).toBe(1);
    for (const limit of ["0", "101", "x", "1e2"]) {
      const refused = await call(owner, "GET", path(endpoint.id, `/deliveries?limit=${limit}`));
      expect(refused.status, limit).toBe(400);
    }
  });

  it("deletes an endpoint with its deliveries, and refuses one endpoint too many", async () => {
    const owner = await ownerOf();
    const endpoint = await created(owner);
    await call(owner, "POST", path(endpoint.id, "/test"));
    const deleted = await call(owner, "DELETE", path(endpoint.id));
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect((await call(owner, "DELETE", path(endpoint.id))).status).toBe(404);
    expect(await db().webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(0);
    for (let i = 0; i < MAX_ENDPOINTS_PER_PARTNER; i += 1) await created(owner);
    const extra = await call(owner, "POST", "/api/partner/webhooks", {
      url: PUBLIC_URL,
      eventTypes: TYPES,
    });
    expect(extra.status).toBe(409);
    expect(((await extra.json()) as { error: string }).error).toBe("too_many_endpoints");
    expect(await listed(owner)).toHaveLength(MAX_ENDPOINTS_PER_PARTNER);
  });
});
