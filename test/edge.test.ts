import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER } from "../lib/http/client-ip";
import { DISCOVERY_PATH, discoveryAnswer, discoveryBody } from "../lib/oauth/discovery";
import {
  answerResponse,
  edgeForRequest,
  methodRefusal,
  type EdgeOutcome,
  type EdgeSettings,
} from "../lib/http/edge";
import { allowedMethods, ROUTE_METHODS } from "../lib/http/route-methods";
import { isRouteHandler } from "../lib/http/security-headers";
import { errorFields, relayResponse } from "../lib/oauth/relay";
import { atWindowStart } from "./rate-windows";

/**
 * The edge (lib/http/edge.ts) called with real Requests, as the service's
 * HTTP server calls it for each request before Next routes it;
 * e2e/edge.spec.ts checks the same headers on the real server.
 */

let counter = 0;
const freshIp = () => `203.0.113.${(counter += 1) % 250}-${process.pid}-${Date.now()}`;
const HTTP: EdgeSettings = { https: false, development: false, constants: discoveryAnswer };

function request(path: string, ip: string, headers: Record<string, string> = {}, method = "GET") {
  return new Request(`http://localhost:3000${path}`, {
    method,
    headers: { [CLIENT_IP_HEADER]: ip, ...headers },
  });
}

/**
 * What the client gets from the edge alone: its own answer, or (for a
 * request passed on) the headers the server puts on the response before
 * Next writes the rest.
 */
function asResponse(outcome: EdgeOutcome): Response {
  if ("answer" in outcome) return answerResponse(outcome.answer);
  return new Response(null, { headers: outcome.pass.responseHeaders });
}

async function atEdge(incoming: Request, settings: EdgeSettings = HTTP): Promise<Response> {
  return asResponse(await edgeForRequest(incoming, settings));
}

describe("edge: rate limits", () => {
  it("answers the 51st authorize request from one address with 429, no body and Retry-After", async () => {
    await atWindowStart();
    const ip = freshIp();
    for (let i = 0; i < 50; i += 1) {
      expect((await atEdge(request("/oauth/authorize", ip))).status).not.toBe(429);
    }
    const limited = await atEdge(request("/oauth/authorize", ip));
    expect(limited.status).toBe(429);
    expect(await limited.text()).toBe("");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("is not fooled by a forged X-Forwarded-For: the stamped address counts", async () => {
    await atWindowStart();
    const ip = freshIp();
    const cancel = (forwardedFor: string) =>
      atEdge(request("/oauth/cancel", ip, { "x-forwarded-for": forwardedFor }, "POST"));
    for (let i = 0; i < 50; i += 1) await cancel(`10.9.${i}.1`);
    expect((await cancel("10.10.10.10")).status).toBe(429);
  });

  it("answers the 301st API request with 429", async () => {
    await atWindowStart();
    const ip = freshIp();
    for (let i = 0; i < 300; i += 1) await atEdge(request("/api/accounts", ip));
    expect((await atEdge(request("/api/accounts", ip))).status).toBe(429);
  });

  it("answers My access's 31st action with 429 and still serves its reads", async () => {
    await atWindowStart();
    const ip = freshIp();
    const end = () => atEdge(request("/account/access/end", ip, {}, "POST"));
    for (let i = 0; i < 30; i += 1) expect((await end()).status).not.toBe(429);
    expect((await end()).status).toBe(429);
    expect((await atEdge(request("/account/passkeys/x", ip, {}, "DELETE"))).status).toBe(429);
    // The passkey list a page loads, and a page under /account/, are not actions.
    for (let i = 0; i < 40; i += 1) {
      expect((await atEdge(request("/account/passkeys", ip))).status).not.toBe(429);
    }
    expect((await atEdge(request("/account/deleted", ip))).status).not.toBe(429);
  });

  it("does not limit token, revoke and userinfo", async () => {
    const ip = freshIp();
    for (let i = 0; i < 120; i += 1) {
      for (const [path, method] of [
        ["/oauth/token", "POST"],
        ["/oauth/revoke", "POST"],
        ["/oauth/userinfo", "GET"],
      ] as const) {
        expect((await atEdge(request(path, ip, {}, method))).status).not.toBe(429);
      }
    }
  });
});

const ISSUER = "http://localhost:3000";

/**
 * The headers Next sends for a route handler behind the edge: the edge's
 * first, then each of the handler's that the edge did not set (Next's
 * sendResponse never replaces a header already present, Set-Cookie, Vary and
 * the authentication challenges aside).
 */
function asNextSends(fromEdge: Response, fromHandler: Response): Headers {
  const sent = new Headers(fromEdge.headers);
  fromHandler.headers.forEach((value, name) => {
    if (!sent.has(name)) sent.set(name, value);
  });
  return sent;
}

describe("edge: security headers", () => {
  it("gives pages a nonce CSP and every response the baseline", async () => {
    const page = await atEdge(request("/", freshIp()));
    expect(page.headers.get("content-security-policy")).toMatch(/'nonce-[^']+'/);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const api = await atEdge(request("/oauth/token", freshIp()));
    expect(api.headers.get("content-security-policy")).toBeNull();
    for (const response of [page, api]) {
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
    }
    expect(page.headers.get("referrer-policy")).toBe("same-origin");
  });

  it("leaves a route handler's Referrer-Policy to the handler: the relay page keeps no-referrer", async () => {
    const relay = relayResponse(
      "https://app.example.com/callback",
      errorFields({ error: "access_denied", description: "declined", iss: ISSUER, state: "s" }),
    );
    for (const [path, method] of [
      ["/oauth/authorize", "GET"],
      ["/oauth/cancel", "POST"],
      ["/consent/approve", "POST"],
      ["/banks/callback", "GET"],
    ] as const) {
      const sent = asNextSends(await atEdge(request(path, freshIp(), {}, method)), relay);
      expect(sent.get("referrer-policy")).toBe("no-referrer");
      expect(sent.get("content-security-policy")).toBe(
        relay.headers.get("content-security-policy"),
      );
      expect(sent.get("x-frame-options")).toBe("DENY");
    }
  });

  it("still gives its own answers (429, refusals before routing) the baseline Referrer-Policy", async () => {
    const refused = await atEdge(request("/api/accounts/%E0%A4%A", freshIp()));
    expect(refused.status).toBe(400);
    expect(refused.headers.get("referrer-policy")).toBe("same-origin");
  });

  it("sends a fresh nonce each time", async () => {
    const first = (await atEdge(request("/", freshIp()))).headers.get("content-security-policy");
    const second = (await atEdge(request("/", freshIp()))).headers.get("content-security-policy");
    expect(first).not.toBe(second);
  });
});

/** Every route.ts and page.tsx under app/, as the URL path it serves (groups dropped). */
function appEntries(kind: "route.ts" | "page.tsx"): string[] {
  const root = path.join(__dirname, "..", "app");
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => path.basename(file) === kind)
    .map((file) => {
      const segments = path
        .dirname(file)
        .split(path.sep)
        .filter((segment) => segment !== "." && !/^\(.*\)$/.test(segment))
        .map((segment) => (segment.startsWith("[") ? "any" : segment));
      return `/${segments.join("/")}`;
    });
}

describe("edge: what it sets on the request and answers itself", () => {
  it("puts a page's nonce CSP on the request, where Next reads it, and the same CSP on the response", async () => {
    const outcome = await edgeForRequest(request("/consent", freshIp()), HTTP);
    if (!("pass" in outcome)) throw new Error("a page is passed on to Next");
    const { requestHeaders, responseHeaders } = outcome.pass;
    const nonce = /'nonce-([^']+)'/.exec(responseHeaders["Content-Security-Policy"] ?? "")?.[1];
    expect(nonce).toBeTruthy();
    expect(requestHeaders["x-nonce"]).toBe(nonce);
    expect(requestHeaders["content-security-policy"]).toBe(
      responseHeaders["Content-Security-Policy"],
    );
    expect(requestHeaders["x-bank-connect-path"]).toBe("/consent");
  });

  it("sets nothing on a route handler's request", async () => {
    const outcome = await edgeForRequest(request("/api/accounts", freshIp()), HTTP);
    expect("pass" in outcome && outcome.pass.requestHeaders).toEqual({});
  });

  it("sends HSTS only when the service is reached over https", async () => {
    const hsts = "max-age=63072000; includeSubDomains";
    for (const path of ["/", "/oauth/token", DISCOVERY_PATH]) {
      const secure = await atEdge(request(path, freshIp()), { https: true, development: false });
      expect(secure.headers.get("strict-transport-security"), path).toBe(hsts);
      expect(
        (await atEdge(request(path, freshIp()))).headers.has("strict-transport-security"),
      ).toBe(false);
    }
  });

  it("answers discovery itself, from bytes built once, cacheable for an hour", async () => {
    const answer = await atEdge(request(DISCOVERY_PATH, freshIp()));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("public, max-age=3600");
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(answer.headers.get("content-security-policy")).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
    expect(answer.headers.get("x-frame-options")).toBe("DENY");
    expect(await answer.text()).toBe(discoveryBody());
    expect(discoveryBody()).toBe(discoveryBody());
    expect(JSON.parse(discoveryBody())).toMatchObject({ issuer: "http://localhost:3000" });
    // OPTIONS goes on to the route; a method it does not serve is refused, naming those it does.
    const options = await edgeForRequest(request(DISCOVERY_PATH, freshIp(), {}, "OPTIONS"), HTTP);
    expect("pass" in options).toBe(true);
    const put = await atEdge(request(DISCOVERY_PATH, freshIp(), {}, "PUT"));
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("refuses TRACE and unknown methods with 405 and the baseline headers", async () => {
    const refused = methodRefusal("TRACE", HTTP);
    expect(refused?.status).toBe(405);
    expect(refused?.headers["X-Frame-Options"]).toBe("DENY");
    expect(refused?.headers.Allow).toContain("GET");
    expect(methodRefusal("GET", HTTP)).toBeNull();
    const viaEdge = await atEdge(request("/oauth/token", freshIp(), {}, "PROPFIND"));
    expect(viaEdge.status).toBe(405);
  });

  it("gives build assets the baseline and no nonce", async () => {
    const asset = await atEdge(request("/_next/static/chunks/main.js", freshIp()));
    expect(asset.headers.get("x-content-type-options")).toBe("nosniff");
    expect(asset.headers.get("content-security-policy")).toBeNull();
  });
});

describe("edge: which responses keep their own CSP", () => {
  it("knows every route handler, so the relay page's CSP is never replaced", () => {
    const routes = appEntries("route.ts");
    expect(routes).toContain("/banks/callback");
    expect(routes.filter((route) => !isRouteHandler(route))).toEqual([]);
  });

  it("gives every page the nonce CSP", async () => {
    const pages = appEntries("page.tsx");
    expect(pages).toContain("/consent");
    expect(pages.filter((page) => isRouteHandler(page))).toEqual([]);
    const relayFromCallback = await atEdge(request("/banks/callback", freshIp()));
    expect(relayFromCallback.headers.get("content-security-policy")).toBeNull();
  });
});

const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** The HTTP methods a route.ts exports, in HTTP_METHODS order, read from its source. */
export function exportedMethods(source: string): string[] {
  const names = new Set<string>();
  for (const match of source.matchAll(/export\s+(?:async\s+)?(?:function|const|let)\s+(\w+)/g))
    names.add(match[1]!);
  for (const match of source.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const part of match[1]!.split(","))
      names.add(
        part
          .trim()
          .split(/\s+as\s+/)
          .at(-1)!,
      );
  }
  return HTTP_METHODS.filter((method) => names.has(method));
}

/** Every route.ts under app/: the path Next matches it by (groups dropped, brackets kept), and its source. */
function routeFiles(): [string, string][] {
  const root = path.join(__dirname, "..", "app");
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((file) => path.basename(file) === "route.ts")
    .map((file) => {
      const segments = path
        .dirname(file)
        .split(path.sep)
        .filter((segment) => segment !== "." && !/^\(.*\)$/.test(segment));
      return [`/${segments.join("/")}`, readFileSync(path.join(root, file), "utf8")];
    });
}

describe("edge: the methods each route handler serves", () => {
  it("knows the methods of every route.ts under app/, so its 405s can name them", () => {
    const fromFiles = Object.fromEntries(
      routeFiles().map(([route, source]) => [route, exportedMethods(source)]),
    );
    expect(fromFiles["/oauth/token"]).toEqual(["POST"]);
    // A route missing here, or with other methods: set ROUTE_METHODS in lib/http/route-methods.ts.
    expect(ROUTE_METHODS).toEqual(fromFiles);
  });

  it("reads a route file's methods however they are exported", () => {
    const source = [
      'export const dynamic = "force-dynamic";',
      "export const POST = handler;",
      "export async function PATCH(request: Request) {}",
      "export function GET() {}",
      "export { refuse as PUT, DELETE };",
      "const HEAD = 1;",
    ].join("\n");
    expect(exportedMethods(source)).toEqual(["GET", "POST", "PUT", "PATCH", "DELETE"]);
  });

  it("matches a path to its route as Next does: static segments before parameters before the rest", () => {
    expect(allowedMethods("/oauth/token")).toEqual(["OPTIONS", "POST"]);
    expect(allowedMethods("/oauth/authorize")).toEqual(["GET", "HEAD", "OPTIONS"]);
    expect(allowedMethods("/api/connect/clients/obc_x/branding")).toEqual([
      "GET",
      "HEAD",
      "OPTIONS",
    ]);
    expect(allowedMethods("/api/partner/clients")).toEqual(allowedMethods("/api/anything/else"));
    expect(allowedMethods("/api/anything/else")).toContain("PUT");
    expect(allowedMethods("/logos/a.png")).toEqual(["GET", "HEAD", "OPTIONS"]);
    // A trailing slash is Next's to redirect; pages and unknown paths are not route handlers.
    expect(allowedMethods("/oauth/token/")).toBeNull();
    expect(allowedMethods("/logos/")).toBeNull();
    expect(allowedMethods("/consent")).toBeNull();
    expect(allowedMethods("/oauth/tokens")).toBeNull();
  });

  it("answers a method a route does not serve with 405, Allow and the baseline, and passes the others on", async () => {
    const refused = await atEdge(request("/oauth/token", freshIp(), {}, "GET"));
    expect(refused.status).toBe(405);
    expect(refused.headers.get("allow")).toBe("OPTIONS, POST");
    expect(refused.headers.get("x-frame-options")).toBe("DENY");
    for (const method of ["POST", "OPTIONS"]) {
      const outcome = await edgeForRequest(request("/oauth/token", freshIp(), {}, method), HTTP);
      expect("pass" in outcome, method).toBe(true);
    }
  });
});
