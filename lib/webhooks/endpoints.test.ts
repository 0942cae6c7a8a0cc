import { afterAll, afterEach, describe, expect, it } from "vitest";
import { db, disconnectDb } from "../db/client";
import { setSetting } from "../env";
import type { ResolveHost } from "../http/public-address";
import { createPartner } from "../partners/partners";
import { uniqueEmail } from "../../test/oauth-fixtures";
import {
  checkWebhookUrl,
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
  WebhookError,
} from "./endpoints";
import { writeEvent } from "./events";
import { openSecret } from "./signing";
import { MAX_ENDPOINTS_PER_PARTNER } from "./settings";

/** A resolver answering fixed addresses per name, as the system resolver would. */
const resolver =
  (answers: Record<string, string[]>): ResolveHost =>
  async (hostname) => {
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

const PUBLIC = resolver({
  "hooks.example": ["93.184.215.14"],
  "internal.example": ["10.0.0.7"],
  "mixed.example": ["93.184.215.14", "192.168.1.4"],
  "metadata.example": ["169.254.169.254"],
  "v6.example": ["fd00::1"],
});

const newPartner = (label: string) =>
  createPartner({
    name: `Hooks ${label} ${Math.random().toString(36).slice(2, 8)}`,
    ownerEmail: uniqueEmail("owner"),
  });

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(WebhookError);
  return (error as WebhookError).code;
}

afterEach(() => setSetting("WEBHOOKS_ALLOW_LOOPBACK", ""));
afterAll(() => disconnectDb());

describe("webhook endpoint address", () => {
  it("accepts an https address whose every address is public", async () => {
    await expect(checkWebhookUrl("https://hooks.example/in?x=1", PUBLIC)).resolves.toBe(
      "https://hooks.example/in?x=1",
    );
    await expect(checkWebhookUrl("https://93.184.215.14:8443/in", PUBLIC)).resolves.toBe(
      "https://93.184.215.14:8443/in",
    );
  });

  it("refuses private and reserved addresses, by name or literal, at save", async () => {
    for (const url of [
      "https://internal.example/in",
      "https://mixed.example/in",
      "https://metadata.example/in",
      "https://v6.example/in",
      "https://127.0.0.1/in",
      "https://[::1]/in",
      "https://10.1.2.3/in",
      "https://[::ffff:192.168.0.1]/in",
    ]) {
      expect(await refusal(checkWebhookUrl(url, PUBLIC)), url).toBe("private_address");
    }
  });

  it("refuses other schemes, credentials, fragments, names that do not resolve, and nonsense", async () => {
    expect(await refusal(checkWebhookUrl("http://hooks.example/in", PUBLIC))).toBe("not_https");
    expect(await refusal(checkWebhookUrl("ftp://hooks.example/in", PUBLIC))).toBe("not_https");
    expect(await refusal(checkWebhookUrl("https://u:p@hooks.example/in", PUBLIC))).toBe(
      "credentials",
    );
    expect(await refusal(checkWebhookUrl("https://hooks.example/in#x", PUBLIC))).toBe("fragment");
    expect(await refusal(checkWebhookUrl("https://nowhere.example/in", PUBLIC))).toBe(
      "unreachable",
    );
    expect(await refusal(checkWebhookUrl("hooks.example/in", PUBLIC))).toBe("invalid_url");
    expect(
      await refusal(checkWebhookUrl(`https://hooks.example/${"a".repeat(2048)}`, PUBLIC)),
    ).toBe("too_long");
  });

  it("a loopback receiver over http only where a local run allows it", async () => {
    expect(await refusal(checkWebhookUrl("http://127.0.0.1:9/in"))).toBe("not_https");
    setSetting("WEBHOOKS_ALLOW_LOOPBACK", "true");
    await expect(checkWebhookUrl("http://127.0.0.1:9/in")).resolves.toBe("http://127.0.0.1:9/in");
    // Loopback only: every other private address stays refused, and http to a public one too.
    expect(await refusal(checkWebhookUrl("http://10.0.0.1/in"))).toBe("private_address");
    expect(await refusal(checkWebhookUrl("http://hooks.example/in", PUBLIC))).toBe("not_https");
  });
});

describe("webhook endpoints", () => {
  it("are made with a secret shown once, listed without it, and checked on every change", async () => {
    const partner = await newPartner("a");
    const { endpoint, secret } = await createEndpoint(
      partner.id,
      { url: "https://hooks.example/in", eventTypes: ["access.ended", "access.ended"] },
      PUBLIC,
    );
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint.eventTypes).toEqual(["access.ended"]);
    const row = await db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(row.secretSealed).not.toContain(secret.slice(6));
    expect(openSecret(endpoint.id, row.secretSealed)?.toString("base64")).toBe(secret.slice(6));
    const listed = await listEndpoints(partner.id);
    expect(listed).toHaveLength(1);
    expect(Object.keys(listed[0] ?? {})).not.toContain("secretSealed");
    expect(JSON.stringify(listed)).not.toContain(row.secretSealed);

    expect(
      await refusal(
        createEndpoint(
          partner.id,
          { url: "https://hooks.example/in", eventTypes: ["nope"] },
          PUBLIC,
        ),
      ),
    ).toBe("unknown_event_type");
    expect(
      await refusal(
        createEndpoint(partner.id, { url: "https://hooks.example/in", eventTypes: [] }, PUBLIC),
      ),
    ).toBe("no_event_types");
    expect(
      await refusal(
        updateEndpoint(partner.id, endpoint.id, { url: "https://internal.example/in" }, PUBLIC),
      ),
    ).toBe("private_address");

    const off = await updateEndpoint(partner.id, endpoint.id, { enabled: false });
    expect(off?.disabledReason).toBe("partner");
    const on = await updateEndpoint(partner.id, endpoint.id, {
      enabled: true,
      eventTypes: ["connection.expired"],
    });
    expect(on).toMatchObject({
      disabledAt: null,
      disabledReason: null,
      eventTypes: ["connection.expired"],
    });
  });

  it(`a partner has at most ${MAX_ENDPOINTS_PER_PARTNER} endpoints`, async () => {
    const partner = await newPartner("limit");
    await Promise.all(
      Array.from({ length: MAX_ENDPOINTS_PER_PARTNER }, (_, index) =>
        createEndpoint(
          partner.id,
          { url: `https://hooks.example/${index}`, eventTypes: ["access.granted"] },
          PUBLIC,
        ),
      ),
    );
    const error = await createEndpoint(
      partner.id,
      { url: "https://hooks.example/one-more", eventTypes: ["access.granted"] },
      PUBLIC,
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "conflict", reason: "too_many_endpoints" });
    expect(await listEndpoints(partner.id)).toHaveLength(MAX_ENDPOINTS_PER_PARTNER);
  });

  it("rotating keeps the previous secret valid for 24 hours", async () => {
    const partner = await newPartner("rot");
    const { endpoint, secret } = await createEndpoint(
      partner.id,
      { url: "https://hooks.example/in", eventTypes: ["access.granted"] },
      PUBLIC,
    );
    const before = Date.now();
    const rotated = await rotateSecret(partner.id, endpoint.id);
    expect(rotated?.secret).toMatch(/^whsec_/);
    expect(rotated?.secret).not.toBe(secret);
    const hours = ((rotated?.previousSecretExpiresAt.getTime() ?? 0) - before) / 3600_000;
    expect(hours).toBeGreaterThan(23.99);
    expect(hours).toBeLessThan(24.01);
    const row = await db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(openSecret(endpoint.id, row.previousSecretSealed ?? "")?.toString("base64")).toBe(
      secret.slice(6),
    );
  });

  it("a partner never sees or touches another partner's endpoint or delivery", async () => {
    const owner = await newPartner("owner");
    const other = await newPartner("other");
    const { endpoint } = await createEndpoint(
      owner.id,
      { url: "https://hooks.example/in", eventTypes: ["access.granted"] },
      PUBLIC,
    );
    const written = await writeEvent({
      partnerId: owner.id,
      type: "access.granted",
      data: { client_id: "obc_x", user: "wl:x:connect:y" },
    });
    const deliveryId = written?.deliveryIds[0] ?? "";
    expect(deliveryId).not.toBe("");

    expect(await listEndpoints(other.id)).toEqual([]);
    expect(await updateEndpoint(other.id, endpoint.id, { enabled: false })).toBeNull();
    expect(await rotateSecret(other.id, endpoint.id)).toBeNull();
    expect(await listDeliveries(other.id, endpoint.id, 10)).toBeNull();
    expect(await sendTestEvent(other.id, endpoint.id)).toBeNull();
    expect(await replayDelivery(other.id, deliveryId)).toBeNull();
    expect(await deleteEndpoint(other.id, endpoint.id)).toBe(false);

    const row = await db().webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(row.disabledAt).toBeNull();
    expect(row.previousSecretSealed).toBeNull();
    expect(await db().webhookDelivery.count({ where: { endpointId: endpoint.id } })).toBe(1);

    // The owner does see it all.
    const test = await sendTestEvent(owner.id, endpoint.id);
    const replay = await replayDelivery(owner.id, deliveryId);
    expect(replay?.eventId).toBe(written?.eventId);
    expect(replay?.deliveryId).not.toBe(deliveryId);
    const deliveries = await listDeliveries(owner.id, endpoint.id, 10);
    expect(deliveries?.map((delivery) => delivery.eventType).sort()).toEqual([
      "access.granted",
      "access.granted",
      "webhook.test",
    ]);
    expect(deliveries?.find((delivery) => delivery.id === test?.deliveryId)?.status).toBe(
      "pending",
    );
    expect(await deleteEndpoint(owner.id, endpoint.id)).toBe(true);
    expect(await listEndpoints(owner.id)).toEqual([]);
  });
});
