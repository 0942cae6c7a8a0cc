import { generateKeyPair } from "../../lib/crypto/envelope";
import { define, flowHeaders, type Generator } from "./generator";
import { flowSessionMutation } from "./mutations";
import type { Rng } from "./prng";
import type { Mutation } from "./template";
import type { FuzzContext } from "./types";

/** The hosted screens' form posts (/docs/flow), the sandbox bank and the demo app. */

const PUBLIC_KEY = generateKeyPair().publicKeyRawB64;
const OTHER_KEY = generateKeyPair().publicKeyRawB64;
const flowMutations = (ctx: FuzzContext): Record<string, Mutation> => ({
  "flow-session": flowSessionMutation(ctx),
  "flow-session-2": flowSessionMutation(ctx),
});

const pickFlow = (rng: Rng, ctx: FuzzContext) => rng.pick(ctx.flows);

const formPost = (
  name: string,
  fields: (rng: Rng, ctx: FuzzContext, csrf: Record<string, string>) => [string, string][],
): Generator =>
  define(
    { name, family: "flow-form", methods: ["POST"] },
    (rng, ctx) => {
      const flow = pickFlow(rng, ctx);
      return {
        method: "POST",
        path: name,
        headers: flowHeaders(ctx, flow.cookie),
        body: { type: "form", fields: fields(rng, ctx, flow.csrf) },
      };
    },
    flowMutations,
  );

const browserGet = (name: string, query: (rng: Rng) => [string, string][]): Generator =>
  define(
    { name, family: "flow-form", methods: ["GET"] },
    (rng, ctx) => ({
      method: "GET",
      path: name,
      query: query(rng),
      headers: { cookie: pickFlow(rng, ctx).cookie },
    }),
    flowMutations,
  );

const demoHeaders = (ctx: FuzzContext) => ({ cookie: ctx.demo.cookie, origin: ctx.origin });
const demoPost = (
  name: string,
  fields: (rng: Rng, ctx: FuzzContext) => [string, string][],
): Generator =>
  define(
    { name, family: "demo", methods: ["GET", "POST"] },
    (rng, ctx) => ({
      method: "POST",
      path: name,
      headers: demoHeaders(ctx),
      body: { type: "form", fields: fields(rng, ctx) },
    }),
    (ctx) => ({
      "demo-session": (rng, t) => {
        const out = structuredClone(t);
        const choice = rng.int(0, 3);
        if (choice === 0) delete out.headers.cookie;
        else if (choice === 1) delete out.headers.origin;
        else if (choice === 2)
          out.headers.cookie = `demo_browser=${rng.pick(["", "%zz", "x".repeat(3000), "\u00ff"])}`;
        else out.headers.origin = ctx.origin.replace("localhost", "127.0.0.1");
        return out;
      },
    }),
  );

export const FLOW_GENERATORS: Generator[] = [
  formPost("/login/request", (rng, _ctx, csrf) => [
    ["email", `fuzz-${rng.hex(8)}@example.com`],
    ["returnUrl", rng.pick(["/", "/consent", "/oauth/authorize?client_id=x"])],
    ["csrf", csrf.login ?? ""],
  ]),
  formPost("/login/code", (rng, _ctx, csrf) => [
    ["email", `fuzz-${rng.hex(8)}@example.com`],
    ["code", String(rng.int(100000, 999999))],
    ["returnUrl", "/"],
    ["csrf", csrf.login ?? ""],
  ]),
  formPost("/login/link/confirm", (rng) => [["token", rng.hex(43)]]),
  formPost("/banks/start", (rng, _ctx, csrf) => [
    ["csrf", csrf.bank ?? ""],
    ["country", rng.pick(["DK", "SE", "XX"])],
    ["bank", rng.pick(["Sandbox Nordbank DK", "Unknown Bank"])],
    ["psuType", rng.pick(["personal", "business", "robot"])],
  ]),
  formPost("/banks/continue", (_rng, _ctx, csrf) => [["csrf", csrf.bank ?? ""]]),
  browserGet("/banks/renew", () => []),
  browserGet("/banks/finish", () => []),
  define(
    { name: "/banks/progress/status", family: "flow-json", methods: ["GET"] },
    (rng, ctx) => ({
      method: "GET",
      path: "/banks/progress/status",
      headers: flowHeaders(ctx, pickFlow(rng, ctx).cookie),
    }),
    flowMutations,
  ),
  browserGet("/banks/callback", (rng) => [
    ["state", rng.hex(43)],
    ["code", rng.hex(20)],
    ...(rng.chance(0.3) ? ([["error", "access_denied"]] as [string, string][]) : []),
  ]),
  formPost("/sandbox/authorize/decision", (rng) => [
    ["authorization", rng.hex(32)],
    ["decision", rng.pick(["approve", "deny", "maybe"])],
  ]),
  define(
    { name: "/setup/key", family: "flow-json", methods: ["POST"] },
    (rng, ctx) => {
      const flow = pickFlow(rng, ctx);
      return {
        method: "POST",
        path: "/setup/key",
        headers: flowHeaders(ctx, flow.cookie),
        body: {
          type: "json",
          value: { publicKey: PUBLIC_KEY, csrf: flow.csrf["key-setup"] ?? "" },
        },
      };
    },
    flowMutations,
  ),
  // My access: a signed-in person's JSON actions, with another session's token and others' ids.
  ...(
    [
      ["/account/access/end", (ctx: FuzzContext) => ({ partnerId: ctx.owner.otherPartnerId })],
      ["/account/banks/remove", (ctx: FuzzContext) => ({ connectionId: ctx.data.connectionId })],
      ["/account/key/start-over", () => ({ replaces: PUBLIC_KEY, publicKey: OTHER_KEY })],
      ["/account/delete", () => ({ confirm: "someone@example.com" })],
    ] as const
  ).map(([path, body]) =>
    define({ name: path, family: "flow-json", methods: ["POST"] }, (_rng, ctx) => ({
      method: "POST",
      path,
      headers: flowHeaders(ctx, ctx.owner.cookie),
      body: { type: "json", value: { ...body(ctx), csrf: ctx.owner.csrf } },
    })),
  ),
  define(
    { name: "/setup/start-over", family: "flow-json", methods: ["POST"] },
    (rng, ctx) => {
      const flow = pickFlow(rng, ctx);
      return {
        method: "POST",
        path: "/setup/start-over",
        headers: flowHeaders(ctx, flow.cookie),
        body: {
          type: "json",
          value: {
            replaces: rng.pick([PUBLIC_KEY, OTHER_KEY]),
            publicKey: rng.pick([OTHER_KEY, PUBLIC_KEY]),
            csrf: flow.csrf["start-over"] ?? "",
          },
        },
      };
    },
    flowMutations,
  ),
  define(
    { name: "/consent/approve", family: "flow-json", methods: ["POST"] },
    (rng, ctx) => {
      const flow = pickFlow(rng, ctx);
      const csrf = flow.csrf.approve ?? "";
      return {
        method: "POST",
        path: "/consent/approve",
        headers: flowHeaders(ctx, flow.cookie),
        body: rng.chance(0.5)
          ? { type: "json", value: { csrf, publicKey: PUBLIC_KEY } }
          : { type: "form", fields: [["csrf", csrf]] },
      };
    },
    flowMutations,
  ),
  demoPost("/demo/start", (_rng, ctx) => [["csrf", ctx.demo.csrf]]),
  demoPost("/demo/callback", (rng, ctx) =>
    rng.chance(0.5)
      ? [
          ["code", rng.hex(43)],
          ["state", rng.hex(22)],
          ["iss", ctx.origin],
          ["privateKey", ""],
          ["publicKey", ""],
        ]
      : [
          ["error", "access_denied"],
          ["error_description", "the user declined the authorization"],
          ["state", rng.hex(22)],
          ["iss", ctx.origin],
        ],
  ),
  demoPost("/demo/sync", (_rng, ctx) => [["csrf", ctx.demo.csrf]]),
  demoPost("/demo/revoke", (_rng, ctx) => [["csrf", ctx.demo.csrf]]),
];
