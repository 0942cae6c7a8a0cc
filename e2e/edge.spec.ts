import { expect, test, type APIResponse } from "@playwright/test";
import { authorizePath, createJourneyClient, newPkce } from "./support/journey";
import { partnerAppForSpec } from "./support/partner-app";

/**
 * The edge (lib/http/edge.ts) on the real server: the headers of a page, a
 * JSON route, discovery (answered at the edge), the relay page and the
 * refusals. The 429 is in final/edge-limits.spec.ts (it spends the API budget).
 */

const partnerApp = partnerAppForSpec();
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

function expectBaseline(response: APIResponse, what: string) {
  const headers = response.headers();
  expect(headers["x-content-type-options"], what).toBe("nosniff");
  expect(headers["x-frame-options"], what).toBe("DENY");
  // Served over http here: HSTS only over https.
  expect(headers["strict-transport-security"], what).toBeUndefined();
}

test("a page gets a fresh nonce CSP that its own scripts carry, whatever the client sent", async ({
  request,
}) => {
  const forged = { "Content-Security-Policy": "script-src 'nonce-forged'", "X-Nonce": "forged" };
  const first = await request.get("/login", { headers: forged });
  const second = await request.get("/login");
  expect(first.status()).toBe(200);
  expectBaseline(first, "GET /login");
  expect(first.headers()["referrer-policy"]).toBe("same-origin");
  const csp = first.headers()["content-security-policy"] ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("form-action 'self'");
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
  expect(nonce).toBeTruthy();
  expect(nonce).not.toBe("forged");
  expect(second.headers()["content-security-policy"]).not.toBe(csp);
  // Next takes the nonce from the request the edge passed on: its scripts carry it.
  const html = await first.text();
  const scriptNonces = [...html.matchAll(/<script\b[^>]*\snonce="([^"]+)"/g)].map((m) => m[1]);
  expect(scriptNonces.length).toBeGreaterThan(0);
  expect(new Set(scriptNonces)).toEqual(new Set([nonce]));
  expect(html).not.toContain('nonce="forged"');
});

test("a JSON route keeps its own CSP and gets the baseline, with no page headers", async ({
  request,
}) => {
  const response = await request.get("/api/connections");
  expect(response.status()).toBe(401);
  expectBaseline(response, "GET /api/connections");
  expect(response.headers()["content-security-policy"]).toBe(API_CSP);
  expect(response.headers()["referrer-policy"]).toBeUndefined();
  expect(response.headers()["content-type"]).toContain("application/json");
});

test("discovery is answered at the edge with the baseline and an hour of caching", async ({
  request,
}) => {
  const response = await request.get("/.well-known/oauth-authorization-server");
  expect(response.status()).toBe(200);
  expectBaseline(response, "discovery");
  expect(response.headers()["cache-control"]).toBe("public, max-age=3600");
  expect(response.headers()["content-security-policy"]).toBe(API_CSP);
  const issuer = new URL(response.url()).origin;
  expect(await response.json()).toMatchObject({ issuer, token_endpoint: `${issuer}/oauth/token` });
  const head = await request.head("/.well-known/oauth-authorization-server");
  expect(head.status()).toBe(200);
  expect(await head.body()).toHaveLength(0);
});

test("the relay page keeps its no-referrer and script-hash CSP, with the baseline", async ({
  request,
}) => {
  const client = await createJourneyClient(partnerApp().redirectUri);
  const relay = await request.get(
    authorizePath(client, newPkce().challenge, { scope: "accounts.write" }),
    { maxRedirects: 0 },
  );
  expect(await relay.text()).toContain('<form id="relay" method="post"');
  expectBaseline(relay, "the relay page");
  expect(relay.headers()["referrer-policy"]).toBe("no-referrer");
  expect(relay.headers()["content-security-policy"]).toMatch(/script-src 'sha256-/);
});

test("unknown methods answer 405 and malformed ids 400, before routing, with the baseline", async ({
  request,
}) => {
  const propfind = await request.fetch("/oauth/token", { method: "PROPFIND" });
  expect(propfind.status()).toBe(405);
  expect(propfind.headers().allow).toContain("POST");
  expect(await propfind.body()).toHaveLength(0);
  expectBaseline(propfind, "PROPFIND");

  const malformed = await request.get("/api/accounts/%E0%A4%A/transactions");
  expect(malformed.status()).toBe(400);
  expect(await malformed.json()).toMatchObject({ error: "invalid_request" });
  expectBaseline(malformed, "a malformed id");
});
