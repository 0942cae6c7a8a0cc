import { define, type Generator } from "./generator";
import { apiKeyMutation, pathIdMutation } from "./mutations";
import type { Mutation, Pair } from "./template";
import type { FuzzContext, Method } from "./types";
import { HUGE_INTEGERS, oddValue, WRONG_TYPES } from "./values";

/** The data API (/docs/data): five operations behind an API key, 403 elsewhere. */

const EVERY: Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

const keyHeaders = (
  rng: { chance(p: number): boolean },
  ctx: FuzzContext,
): Record<string, string> =>
  rng.chance(0.8) ? { "x-api-key": ctx.data.key } : { authorization: `Bearer ${ctx.data.key}` };

const dataMutations = (ctx: FuzzContext): Record<string, Mutation> => ({
  "api-key": apiKeyMutation(ctx),
  "path-id": pathIdMutation(() => [
    ctx.data.otherTenantAccountId,
    ctx.data.connectionId,
    ctx.data.accountId.toUpperCase(),
  ]),
  "psu-headers": (rng, t) => {
    const out = structuredClone(t);
    const names = [
      "x-psu-ip-address",
      "x-psu-user-agent",
      "x-psu-referer",
      "x-psu-accept",
      "x-psu-accept-language",
      "x-psu-accept-charset",
      "x-psu-accept-encoding",
    ];
    for (const name of names) {
      if (rng.chance(0.6))
        out.headers[name] = rng.pick([
          "1.2.3.4",
          "127.0.0.1",
          "::1",
          "999.1.1.1",
          "fe80::1%eth0",
          "",
          "a".repeat(3000),
          "\u00ff\u00fe",
          "Mozilla/5.0",
        ]);
    }
    return out;
  },
});

/** Cursors that are not one the service gave: garbage, forged arrays, wrong types, huge. */
const forgedCursor = (rng: { pick<T>(values: readonly T[]): T }, value: () => string) => {
  const encode = (fields: unknown) => Buffer.from(JSON.stringify(fields)).toString("base64url");
  return rng.pick([
    value(),
    "",
    "%",
    "a".repeat(5000),
    encode(["t1", null, null, "not-a-uuid", 1, null, null]),
    encode(["t1", "2026-01-01", null, "00000000-0000-4000-8000-000000000000", -1, null, null]),
    encode(["t1", "x".repeat(100), null, "00000000-0000-4000-8000-000000000000", 1, null, null]),
    encode(["a1", "2026-01-01T00:00:00.000Z", "00000000-0000-4000-8000-000000000000"]),
    encode(["a1", "yesterday", "00000000-0000-4000-8000-000000000000"]),
    encode({ after: 1 }),
    encode(null),
  ]);
};

/** The transactions query (/docs/data) with one parameter out of range, repeated or unknown, or a forged cursor. */
const pagingParam: Mutation = (rng, t) => {
  const out = structuredClone(t);
  const name = rng.pick(["limit", "offset", "from", "to", "cursor", "unknown", "LIMIT"]);
  out.query = out.query.filter(([k]) => k !== name);
  const value =
    name === "cursor"
      ? forgedCursor(rng, () => oddValue(rng))
      : name === "from" || name === "to"
        ? rng.pick([
            "2026-02-30",
            "2026-13-01",
            "20260101",
            "2026-1-1",
            "0000-00-00",
            "9999-12-31",
            "2026-01-01T00:00:00Z",
            "-2026-01-01",
            oddValue(rng),
          ])
        : rng.pick([...HUGE_INTEGERS, oddValue(rng)]);
  out.query.push([name, value]);
  if (rng.chance(0.2)) out.query.push(["from", "2026-06-01"], ["to", "2026-01-01"]);
  return out;
};

/** Sync bodies whose fields have the wrong types or sizes. */
const syncBody: Mutation = (rng, t) => {
  if (t.body?.type !== "json") return null;
  const out = structuredClone(t);
  const value = out.body?.type === "json" ? (out.body.value as Record<string, unknown>) : {};
  const bad = rng.pick([...WRONG_TYPES, "", "x".repeat(5000), oddValue(rng)]);
  if ("items" in value) {
    const variants: unknown[] = [
      { items: bad },
      { items: [bad] },
      { items: [{ accountId: bad, uid: "u" }] },
      { items: [{ accountId: "a", uid: bad }] },
      { items: Array.from({ length: 101 }, (_, i) => ({ accountId: `a${i}`, uid: "u" })) },
      { items: [{ accountId: "a", uid: "u", extra: bad }] },
      { items: [] },
      {},
    ];
    out.body = { type: "json", value: rng.pick(variants) };
  } else {
    out.body = {
      type: "json",
      value: rng.pick([{ uid: bad }, { uid: "u", extra: bad }, { UID: "u" }, {}]),
    };
  }
  return out;
};

/** The accounts list's optional paging: limit and cursor out of range, repeated, unknown or forged. */
const accountsPaging: Mutation = (rng, t) => {
  const out = structuredClone(t);
  const name = rng.pick(["limit", "cursor", "offset", "unknown"]);
  out.query = out.query.filter(([k]) => k !== name);
  out.query.push([
    name,
    name === "cursor"
      ? forgedCursor(rng, () => oddValue(rng))
      : rng.pick([...HUGE_INTEGERS, oddValue(rng)]),
  ]);
  if (rng.chance(0.2)) out.query.push([name, "1"]);
  return out;
};

const txPath = (id: string) => `/api/accounts/${id}/transactions`;

export const DATA_GENERATORS: Generator[] = [
  define(
    { name: "/api/accounts", family: "data", methods: EVERY },
    (rng, ctx) => ({
      method: "GET",
      path: "/api/accounts",
      query: rng.chance(0.3) ? [["limit", String(rng.int(1, 500))]] : [],
      headers: keyHeaders(rng, ctx),
    }),
    (ctx) => ({ ...dataMutations(ctx), paging: accountsPaging }),
  ),
  define(
    { name: "/api/connections", family: "data", methods: EVERY },
    (rng, ctx) => ({ method: "GET", path: "/api/connections", headers: keyHeaders(rng, ctx) }),
    dataMutations,
  ),
  define(
    { name: "/api/accounts/[id]/transactions", family: "data", methods: EVERY },
    (rng, ctx) => {
      const query: Pair[] = [];
      if (rng.chance(0.5)) query.push(["from", "2026-01-01"]);
      if (rng.chance(0.5)) query.push(["to", "2026-12-31"]);
      if (rng.chance(0.5)) query.push(["limit", String(rng.int(1, 500))]);
      if (rng.chance(0.5)) query.push(["offset", String(rng.int(0, 50))]);
      return {
        method: "GET",
        path: txPath(ctx.data.accountId),
        idSlot: ["/api/accounts/", "/transactions"],
        query,
        headers: keyHeaders(rng, ctx),
      };
    },
    (ctx) => ({ ...dataMutations(ctx), paging: pagingParam, "paging-2": pagingParam }),
  ),
  define(
    { name: "/api/accounts/[id]/sync", family: "sync", methods: EVERY },
    (rng, ctx) => ({
      method: "POST",
      path: `/api/accounts/${ctx.data.accountId}/sync`,
      idSlot: ["/api/accounts/", "/sync"],
      headers: keyHeaders(rng, ctx),
      body: { type: "json", value: { uid: rng.chance(0.7) ? ctx.data.uid : `uid-${rng.hex(8)}` } },
    }),
    (ctx) => ({ ...dataMutations(ctx), "sync-body": syncBody, "sync-body-2": syncBody }),
  ),
  define(
    { name: "/api/sync", family: "sync", methods: EVERY },
    (rng, ctx) => ({
      method: "POST",
      path: "/api/sync",
      headers: keyHeaders(rng, ctx),
      body: {
        type: "json",
        value: {
          items: [
            {
              accountId: rng.chance(0.7) ? ctx.data.accountId : ctx.data.otherTenantAccountId,
              uid: ctx.data.uid,
            },
          ],
        },
      },
    }),
    (ctx) => ({ ...dataMutations(ctx), "sync-body": syncBody, "sync-body-2": syncBody }),
  ),
  define(
    { name: "/api/[...path]", family: "data", methods: EVERY },
    (rng, ctx) => ({
      method: rng.pick(EVERY),
      path: rng.pick([
        "/api/aspsps",
        "/api/connections/open-consents",
        "/api/authorizations",
        "/api/accounts/x/y/z",
        `/api/accounts/${ctx.data.accountId}`,
        "/api/a/b/c/d/e/f/g",
        "/api/partner",
        "/api/%zz",
        "/api/%00",
        "/api/..%2f..%2fhealthz",
        "/api/\u00ff\u00fe",
        `/api/${"x/".repeat(500)}`,
      ]),
      query: rng.chance(0.3) ? [["country", "DK"]] : [],
      headers: keyHeaders(rng, ctx),
    }),
    dataMutations,
  ),
];
