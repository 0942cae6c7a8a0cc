import { readdirSync } from "node:fs";
import path from "node:path";
import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER } from "../lib/http/client-ip";
import { isRouteHandler } from "../lib/http/security-headers";
import { errorFields, relayResponse } from "../lib/oauth/relay";
import { proxy } from "../proxy";
import { atWindowStart } from "./rate-windows";

let counter = 0;
const freshIp = () => `203.0.113.${(counter += 1) % 250}-${process.pid}-${Date.now()}`;

function request(path: string, ip: string, headers: Record<string, string> = {}) {
  return new NextRequest(`http://localhost:3000${path}`, {
    headers: { [CLIENT_IP_HEADER]: ip, ...headers },
  });
}

describe("proxy: rate limits (SPEC 8.1, 7.3)", () => {
  it("answers the 51st authorize request from one address with 429, no body and Retry-After", async () => {
    await atWindowStart();
    const ip = freshIp();
    for (let i = 0; i < 50; i += 1) {
      expect((await proxy(request("/oauth/authorize", ip))).status).not.toBe(429);
    }
    const limited = await proxy(request("/oauth/authorize", ip));
    expect(limited.status).toBe(429);
    expect(await limited.text()).toBe("");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("is not fooled by a forged X-Forwarded-For: the stamped address counts", async () => {
    await atWindowStart();
    const ip = freshIp();
    for (let i = 0; i < 50; i += 1) {
      await proxy(request("/oauth/cancel", ip, { "x-forwarded-for": `10.9.${i}.1` }));
    }
    expect(
      (await proxy(request("/oauth/cancel", ip, { "x-forwarded-for": "10.10.10.10" }))).status,
    ).toBe(429);
  });

  it("answers the 301st API request with 429", async () => {
    await atWindowStart();
    const ip = freshIp();
    for (let i = 0; i < 300; i += 1) await proxy(request("/api/accounts", ip));
    expect((await proxy(request("/api/accounts", ip))).status).toBe(429);
  });

  it("does not limit token, revoke and userinfo", async () => {
    const ip = freshIp();
    for (let i = 0; i < 120; i += 1) {
      for (const path of ["/oauth/token", "/oauth/revoke", "/oauth/userinfo"]) {
        expect((await proxy(request(path, ip))).status).not.toBe(429);
      }
    }
  });
});

const ISSUER = "http://localhost:3000";

/**
 * The headers Next sends for a route handler behind the proxy: the proxy's
 * first, then each of the handler's that the proxy did not set (Next's
 * sendResponse never replaces a header already present, Set-Cookie, Vary and
 * the authentication challenges aside).
 */
function asNextSends(fromProxy: Response, fromHandler: Response): Headers {
  const sent = new Headers(fromProxy.headers);
  fromHandler.headers.forEach((value, name) => {
    if (!sent.has(name)) sent.set(name, value);
  });
  return sent;
}

describe("proxy: security headers", () => {
  it("gives pages a nonce CSP and every response the baseline", async () => {
    const page = await proxy(request("/", freshIp()));
    expect(page.headers.get("content-security-policy")).toMatch(/'nonce-[^']+'/);
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const api = await proxy(request("/oauth/token", freshIp()));
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
    for (const path of [
      "/oauth/authorize",
      "/oauth/cancel",
      "/consent/approve",
      "/banks/callback",
    ]) {
      const sent = asNextSends(await proxy(request(path, freshIp())), relay);
      expect(sent.get("referrer-policy")).toBe("no-referrer");
      expect(sent.get("content-security-policy")).toBe(
        relay.headers.get("content-security-policy"),
      );
      expect(sent.get("x-frame-options")).toBe("DENY");
    }
  });

  it("still gives its own answers (429, refusals before routing) the baseline Referrer-Policy", async () => {
    const refused = await proxy(
      new NextRequest("http://localhost:3000/api/accounts/%E0%A4%A", {
        headers: { [CLIENT_IP_HEADER]: freshIp() },
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.headers.get("referrer-policy")).toBe("same-origin");
  });

  it("sends a fresh nonce each time", async () => {
    const first = (await proxy(request("/", freshIp()))).headers.get("content-security-policy");
    const second = (await proxy(request("/", freshIp()))).headers.get("content-security-policy");
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

describe("proxy: which responses keep their own CSP", () => {
  it("knows every route handler, so the relay page's CSP is never replaced", () => {
    const routes = appEntries("route.ts");
    expect(routes).toContain("/banks/callback");
    expect(routes.filter((route) => !isRouteHandler(route))).toEqual([]);
  });

  it("gives every page the nonce CSP", async () => {
    const pages = appEntries("page.tsx");
    expect(pages).toContain("/consent");
    expect(pages.filter((page) => isRouteHandler(page))).toEqual([]);
    const relayFromCallback = await proxy(request("/banks/callback", freshIp()));
    expect(relayFromCallback.headers.get("content-security-policy")).toBeNull();
  });
});
