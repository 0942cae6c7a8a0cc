import { generateKeyPair } from "../../lib/crypto/envelope";
import { define, type Generator } from "./generator";
import { ownerMutation, partnerParamMutation, pathIdMutation } from "./mutations";
import type { Rng } from "./prng";
import type { Mutation } from "./template";
import type { FuzzContext, Method } from "./types";
import { INVALID_UTF8, oddValue, WRONG_TYPES } from "./values";

/** The partner owner's API (docs/protocol.md#partner-endpoints) and the anonymous client branding endpoint. */

const EVERY: Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const PUBLIC_KEY = generateKeyPair().publicKeyRawB64;

const ownerHeaders = (ctx: FuzzContext): Record<string, string> => ({
  cookie: ctx.owner.cookie,
  "x-csrf-token": ctx.owner.csrf,
  origin: ctx.origin,
});

const ownerMutations = (ctx: FuzzContext): Record<string, Mutation> => ({
  owner: ownerMutation(ctx),
  "owner-2": ownerMutation(ctx),
  "partner-param": partnerParamMutation(ctx),
  "path-id": pathIdMutation(() => [ctx.owner.otherClientId, ctx.oauth.clientId, "obc_"]),
  "field-value": (rng, t) => {
    if (t.body?.type !== "json") return null;
    const out = structuredClone(t);
    const value = (out.body?.type === "json" ? out.body.value : {}) as Record<string, unknown>;
    const keys = Object.keys(value);
    const key = keys.length ? rng.pick(keys) : "name";
    const odd = rng.pick<unknown>([
      ...WRONG_TYPES,
      oddValue(rng),
      ["https://app.example.com/cb", "https://app.example.com/cb"],
      ["http://insecure.example/cb"],
      Array.from({ length: 50 }, (_, i) => `https://app.example.com/${i}`),
      [
        "https://127.0.0.1/cb",
        "https://[::1]/cb",
        "https://xn--80ak6aa92e.com/cb",
        "https://a@b.example/cb#frag",
      ],
      "#zzzzzz",
      "rgb(0,0,0)",
      "https://10.0.0.1/logo.png",
      "ftp://x/logo.png",
    ]);
    out.body = { type: "json", value: { ...value, [key]: odd } };
    return out;
  },
});

const owned = (
  name: string,
  method: Method,
  path: (ctx: FuzzContext) => string,
  body?: (ctx: FuzzContext) => unknown,
  idSlot?: [string, string],
): Generator =>
  define(
    { name, family: "partner", methods: EVERY },
    (_rng, ctx) => ({
      method,
      path: path(ctx),
      ...(idSlot ? { idSlot } : {}),
      headers: ownerHeaders(ctx),
      ...(body ? { body: { type: "json" as const, value: body(ctx) } } : {}),
    }),
    ownerMutations,
  );

/** The webhook endpoints API: ids of the other partner's endpoint and delivery, and odd addresses. */
const webhookMutations = (ctx: FuzzContext): Record<string, Mutation> => ({
  ...ownerMutations(ctx),
  "path-id": pathIdMutation(() => [
    ctx.webhooks.otherEndpointId,
    ctx.webhooks.otherDeliveryId,
    ctx.webhooks.deliveryId,
    ctx.owner.clientIds[0] ?? "",
  ]),
  "webhook-value": (rng, t) => {
    if (t.body?.type !== "json") return null;
    const out = structuredClone(t);
    const value = (out.body?.type === "json" ? out.body.value : {}) as Record<string, unknown>;
    const key = rng.pick(["url", "eventTypes", "enabled", "secret"]);
    const odd = rng.pick<unknown>([
      ...WRONG_TYPES,
      oddValue(rng),
      "https://127.0.0.1/hook",
      "https://[::1]/hook",
      "https://10.0.0.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::ffff:127.0.0.1]/hook",
      "https://0x7f000001/hook",
      "https://localhost./hook",
      "http://8.8.8.8/hook",
      "https://u:p@8.8.8.8/hook",
      "https://8.8.8.8/hook#frag",
      `https://8.8.8.8/${"a".repeat(2100)}`,
      "javascript:alert(1)",
      [],
      ["access.granted", "access.granted"],
      ["webhook.test"],
      ["ACCESS.GRANTED"],
      Array.from({ length: 500 }, () => "access.granted"),
    ]);
    out.body = { type: "json", value: { ...value, [key]: odd } };
    return out;
  },
});

const webhook = (
  name: string,
  method: Method,
  path: (ctx: FuzzContext) => string,
  body?: (ctx: FuzzContext) => unknown,
  idSlot?: (ctx: FuzzContext) => [string, string],
  query?: (rng: Rng) => [string, string][],
): Generator =>
  define(
    { name, family: "partner", methods: EVERY },
    (rng, ctx) => ({
      method,
      path: path(ctx),
      ...(idSlot ? { idSlot: idSlot(ctx) } : {}),
      ...(query ? { query: query(rng) } : {}),
      headers: ownerHeaders(ctx),
      ...(body ? { body: { type: "json" as const, value: body(ctx) } } : {}),
    }),
    webhookMutations,
  );

const WEBHOOKS = "/api/partner/webhooks";

const WEBHOOK_GENERATORS: Generator[] = [
  webhook(WEBHOOKS, "GET", () => WEBHOOKS),
  webhook(
    WEBHOOKS,
    "POST",
    () => WEBHOOKS,
    // A public address literal: no name to resolve, and accepted at save.
    () => ({ url: "https://8.8.8.8/fuzz-hook", eventTypes: ["access.granted"] }),
  ),
  webhook(
    `${WEBHOOKS}/[endpointId]`,
    "PATCH",
    (ctx) => `${WEBHOOKS}/${ctx.webhooks.endpointId}`,
    () => ({ eventTypes: ["access.ended", "connection.expired"], enabled: false }),
    () => [`${WEBHOOKS}/`, ""],
  ),
  webhook(
    `${WEBHOOKS}/[endpointId]`,
    "DELETE",
    (ctx) => `${WEBHOOKS}/${ctx.webhooks.otherEndpointId}`,
    undefined,
    () => [`${WEBHOOKS}/`, ""],
  ),
  webhook(
    `${WEBHOOKS}/[endpointId]/rotate-secret`,
    "POST",
    (ctx) => `${WEBHOOKS}/${ctx.webhooks.endpointId}/rotate-secret`,
    undefined,
    () => [`${WEBHOOKS}/`, "/rotate-secret"],
  ),
  webhook(
    `${WEBHOOKS}/[endpointId]/deliveries`,
    "GET",
    (ctx) => `${WEBHOOKS}/${ctx.webhooks.endpointId}/deliveries`,
    undefined,
    () => [`${WEBHOOKS}/`, "/deliveries"],
    (rng) =>
      rng.pick<[string, string][]>([
        [],
        [["limit", String(rng.int(-5, 300))]],
        [["limit", rng.pick(["", "x", "1e2", "1.5", "0x10", "٣"])]],
      ]),
  ),
  webhook(
    `${WEBHOOKS}/[endpointId]/test`,
    "POST",
    (ctx) => `${WEBHOOKS}/${ctx.webhooks.endpointId}/test`,
    undefined,
    () => [`${WEBHOOKS}/`, "/test"],
  ),
  webhook(
    `${WEBHOOKS}/[endpointId]/deliveries/[deliveryId]/replay`,
    "POST",
    (ctx) => `${WEBHOOKS}/${ctx.webhooks.endpointId}/deliveries/${ctx.webhooks.deliveryId}/replay`,
    undefined,
    // The delivery's id is the one mutated: another partner's, one of another endpoint, or no id.
    (ctx) => [`${WEBHOOKS}/${ctx.webhooks.endpointId}/deliveries/`, "/replay"],
  ),
];

const recipientKey = (base: string): Generator[] => [
  owned(
    `${base}/recipient-key`,
    "PUT",
    () => `${base}/recipient-key`,
    () => ({ publicKey: PUBLIC_KEY, challengeAnswer: "bm90LXRoZS1hbnN3ZXI=" }),
  ),
  owned(
    `${base}/recipient-key/challenge`,
    "POST",
    () => `${base}/recipient-key/challenge`,
    () => ({ publicKey: PUBLIC_KEY }),
  ),
];

export const PARTNER_GENERATORS: Generator[] = [
  owned("/api/partner/me", "GET", () => "/api/partner/me"),
  owned(
    "/api/partner/branding",
    "PUT",
    () => "/api/partner/branding",
    () => ({
      displayName: "Acme Budget",
      logoUrl: null,
      accentColor: "#1f5eff",
      supportUrl: null,
      purpose: "Budgeting",
      defaultLanguage: "en",
    }),
  ),
  define(
    { name: "/api/partner/logo", family: "partner", methods: EVERY },
    (rng, ctx) => ({
      method: "POST",
      path: "/api/partner/logo",
      headers: ownerHeaders(ctx),
      body: {
        type: "bytes",
        contentType: rng.pick([
          "image/png",
          "application/octet-stream",
          "image/svg+xml",
          "text/plain",
        ]),
        bytes: rng.pick([
          Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"),
          Buffer.from("GIF89a\u0001\u0000"),
          Buffer.concat([
            Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
            Buffer.alloc(64),
          ]),
          Buffer.from([0xff, 0xd8, 0xff]),
          Buffer.from("RIFF\u0000\u0000\u0000\u0000WEBP"),
          ...INVALID_UTF8,
          Buffer.alloc(0),
          Buffer.alloc(600 * 1024, 1),
        ]),
      },
    }),
    ownerMutations,
  ),
  define(
    { name: "/api/partner/audit-events", family: "partner", methods: EVERY },
    (rng, ctx) => ({
      method: "GET",
      path: "/api/partner/audit-events",
      headers: ownerHeaders(ctx),
      query: rng.pick<[string, string][]>([
        [],
        [["type", "client.secret_rotated"]],
        [["type", "sign_in.succeeded"]],
        [["limit", String(rng.int(0, 200))]],
        [["limit", "1e2"]],
        [["before", rng.pick(["", "x", "MjAyNi0wMS0wMVQwMDowMDowMC4wMDBafG5vcGU"])]],
        [
          ["type", "api_key.issued"],
          ["type", "api_key.revoked"],
        ],
      ]),
    }),
    ownerMutations,
  ),
  owned("/api/partner/clients", "GET", () => "/api/partner/clients"),
  owned(
    "/api/partner/clients",
    "POST",
    () => "/api/partner/clients",
    () => ({
      name: "Fuzz client",
      redirectUris: ["https://app.example.com/callback"],
    }),
  ),
  owned(
    "/api/partner/clients/[clientId]",
    "PATCH",
    (ctx) => `/api/partner/clients/${ctx.owner.clientIds[0] ?? ""}`,
    () => ({ name: "Renamed", redirectUris: ["https://app.example.com/callback"] }),
    ["/api/partner/clients/", ""],
  ),
  owned(
    "/api/partner/clients/[clientId]",
    "DELETE",
    (ctx) => `/api/partner/clients/${ctx.owner.otherClientId}`,
    undefined,
    ["/api/partner/clients/", ""],
  ),
  owned(
    "/api/partner/clients/[clientId]/rotate-secret",
    "POST",
    (ctx) => `/api/partner/clients/${ctx.owner.clientIds[0] ?? ""}/rotate-secret`,
    undefined,
    ["/api/partner/clients/", "/rotate-secret"],
  ),
  ...WEBHOOK_GENERATORS,
  ...recipientKey("/api/partners/mine"),
  ...recipientKey("/api/partner"),
  define(
    { name: "/api/connect/clients/[clientId]/branding", family: "public-json", methods: ["GET"] },
    (rng, ctx) => ({
      method: "GET",
      path: `/api/connect/clients/${rng.pick([ctx.oauth.clientId, ctx.owner.clientIds[0] ?? "", ctx.oauth.suspendedClientId])}/branding`,
      idSlot: ["/api/connect/clients/", "/branding"],
      headers: {},
    }),
    (ctx) => ({ "path-id": pathIdMutation(() => [ctx.owner.otherClientId, "obc_demo"]) }),
  ),
];
