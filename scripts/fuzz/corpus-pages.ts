import { define, type Generator } from "./generator";
import type { Rng } from "./prng";
import type { Mutation, Pair } from "./template";
import type { FuzzContext } from "./types";
import { rawOdd } from "./values";

/** Pages (every page.tsx under app/), unknown paths and the static JSON and logo routes. */

/** Each page with the query parameters it reads. */
const PAGES: Record<string, string[]> = {
  "/": [],
  "/dashboard": ["partner"],
  "/account": ["key"],
  "/demo": ["notice"],
  "/docs": [],
  "/docs/flow": [],
  "/docs/recipient-keys": [],
  "/docs/relay": [],
  "/docs/token": [],
  "/docs/errors": [],
  "/docs/data": [],
  "/docs/sync": [],
  "/docs/partners": [],
  "/docs/envelopes": [],
  "/error": ["reason"],
  "/banks": ["notice", "q", "country", "type"],
  "/banks/progress": [],
  "/login": ["returnUrl", "email", "sent", "error", "retry", "left"],
  "/login/link": ["token", "result"],
  "/setup": [],
  "/consent": [],
  "/sandbox/authorize": ["authorization"],
};

const UNKNOWN = [
  "/nope",
  "/oauth/nope",
  "/oauth",
  "/.well-known/nope",
  "/docs/nope",
  "/_next/static/nope.js",
  "/_next/image?url=x",
  "/favicon.ico",
  "//",
  "/%2e%2e/%2e%2e/etc/passwd",
  "/..%2f..%2f",
  "/%zz",
  "/%",
  "/%00",
  "/\u00ff\u00fe",
  "/login/",
  "/LOGIN",
  "/logos/",
  `/${"a".repeat(6000)}`,
  `/${"a/".repeat(1000)}`,
];

const pageCookie = (rng: Rng, ctx: FuzzContext): Record<string, string | undefined> =>
  rng.pick([
    {},
    { cookie: rng.pick(ctx.flows).cookie },
    { cookie: ctx.owner.cookie },
    { cookie: ctx.owner.multiCookie },
    { cookie: ctx.demo.cookie },
  ]);

const pageQuery: Mutation = (rng, t) => {
  const names = PAGES[t.path] ?? ["x"];
  const name = names.length ? rng.pick(names) : "x";
  return {
    ...structuredClone(t),
    rawQuery: `${name}=${rawOdd(rng)}${rng.chance(0.3) ? `&${name}=${rawOdd(rng)}` : ""}`,
  };
};

export const PAGE_GENERATORS: Generator[] = [
  ...Object.entries(PAGES).map(([path, params]) =>
    define(
      { name: path, family: "page", methods: ["GET"] },
      (rng, ctx) => ({
        method: "GET",
        path,
        query: params
          .filter(() => rng.chance(0.4))
          .map((name): Pair => [
            name,
            rng.pick(["1", "expired", "failed", "/", "a@example.com", "obc_x"]),
          ]),
        headers: pageCookie(rng, ctx),
      }),
      () => ({ "page-query": pageQuery, "page-query-2": pageQuery }),
    ),
  ),
  define({ name: "(unknown paths)", family: "page", methods: ["GET"] }, (rng, ctx) => ({
    method: "GET",
    path: rng.pick(UNKNOWN),
    headers: pageCookie(rng, ctx),
  })),
  define({ name: "/openapi.json", family: "public-json", methods: ["GET"] }, () => ({
    method: "GET",
    path: "/openapi.json",
    headers: {},
  })),
  define({ name: "/healthz", family: "public-json", methods: ["GET"] }, () => ({
    method: "GET",
    path: "/healthz",
    headers: {},
  })),
  define(
    { name: "/logos/[file]", family: "logo", methods: ["GET"] },
    (rng, ctx) => ({
      method: "GET",
      path: `/logos/${ctx.logoFile}`,
      idSlot: ["/logos/", ""],
      headers: rng.chance(0.3) ? { "if-none-match": `"${ctx.logoFile.split(".")[0] ?? ""}"` } : {},
    }),
    (ctx) => ({
      "logo-name": (rng, t) => ({
        ...structuredClone(t),
        path: `/logos/${rng.pick([ctx.logoFile.replace(".png", ".jpg"), ctx.logoFile.toUpperCase(), `${"0".repeat(64)}.png`, "x.png", "..%2f..%2fetc%2fpasswd", "%zz.png", `${ctx.logoFile}%00.png`, "\u00ff.png", `${"a".repeat(5000)}.webp`])}`,
      }),
      "if-none-match": (rng, t) => ({
        ...structuredClone(t),
        headers: {
          "if-none-match": rng.pick(["*", "W/", ",,,", '"', 'W/"x", *', "a".repeat(8000)]),
        },
      }),
    }),
  ),
];
