import { connect } from "node:net";
import { expect, test, type APIResponse } from "@playwright/test";
import { authorizePath, createJourneyClient, newPkce } from "./support/journey";
import { E2E_PORT } from "./support/origin";
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

/** One request as raw bytes (no HTTP client sends these targets); the answer's head. */
function rawHead(requestLine: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(E2E_PORT, "localhost");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1").split("\r\n\r\n")[0]!));
    socket.write(`${requestLine}\r\nHost: localhost:${E2E_PORT}\r\nConnection: close\r\n\r\n`);
  });
}

test("a request target that is not a path answers 400, never a 500 or a redirect to another host", async () => {
  for (const line of [
    "GET * HTTP/1.1",
    "OPTIONS * HTTP/1.1",
    "GET http://evil.example/login HTTP/1.1",
    `GET http://localhost:${E2E_PORT}/login HTTP/1.1`,
  ]) {
    const head = await rawHead(line);
    expect(head, line).toMatch(/^HTTP\/1\.1 400 /);
    expect(head, line).not.toMatch(/^location:/im);
    expect(head, line).toMatch(/^cache-control: no-store$/im);
  }
  expect(await rawHead("GET /login HTTP/1.1")).toMatch(/^HTTP\/1\.1 200 /);
});

test("a method a route does not serve answers 405 naming those it does", async ({ request }) => {
  for (const [method, path, allow] of [
    ["GET", "/oauth/token", "OPTIONS, POST"],
    ["GET", "/oauth/revoke", "OPTIONS, POST"],
    ["POST", "/oauth/authorize", "GET, HEAD, OPTIONS"],
    ["PUT", "/.well-known/oauth-authorization-server", "GET, HEAD, OPTIONS"],
    ["DELETE", "/consent/approve", "OPTIONS, POST"],
  ] as const) {
    const answer = await request.fetch(path, { method, maxRedirects: 0 });
    expect(answer.status(), `${method} ${path}`).toBe(405);
    expect(answer.headers().allow, `${method} ${path}`).toBe(allow);
    expectBaseline(answer, `${method} ${path}`);
  }
  // Next's own OPTIONS answer names the same methods.
  const options = await request.fetch("/oauth/token", { method: "OPTIONS" });
  expect(options.status()).toBe(204);
  expect(options.headers().allow).toBe("OPTIONS, POST");
});

test("a 401 names its scheme: Basic for client authentication, a bare Bearer without a key", async ({
  request,
}) => {
  const token = await request.post("/oauth/token", {
    form: { grant_type: "authorization_code", code: "c", code_verifier: "v".repeat(43) },
  });
  expect(token.status()).toBe(401);
  expect(token.headers()["www-authenticate"]).toBe('Basic realm="oauth"');
  const noKey = await request.get("/api/accounts");
  expect(noKey.status()).toBe(401);
  expect(noKey.headers()["www-authenticate"]).toBe('Bearer realm="api"');
  const badKey = await request.get("/api/accounts", { headers: { "X-Api-Key": "ebk_unknown" } });
  expect(badKey.headers()["www-authenticate"]).toBe('Bearer error="invalid_token"');
});
