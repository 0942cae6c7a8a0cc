import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchDirectRoute } from "../lib/api/direct-routes";
import { db } from "../lib/db/client";
import { EDGE_REQUEST_HEADERS, INTERNAL_REQUEST_HEADERS } from "../lib/http/edge";
import { SERVED_METHODS } from "../lib/http/request-guards";
import { allowedMethods, ROUTE_METHODS } from "../lib/http/route-methods";
import { accessMailsSettled } from "../lib/oauth/access-mail";
import { basicAuthorization, createTestClient, issueCode, newVerifier } from "./oauth-fixtures";
import { startServiceServer, type RunningServiceServer } from "./service-server";

/**
 * The service's HTTP server (scripts/lib/service-server.ts) over real HTTP
 * against real PostgreSQL: what reaches a handler on either lane, and what
 * the server answers before any handler runs.
 */

/** A forged value for every request header the service sets itself. */
const FORGED: Record<string, string> = {
  "x-bank-connect-client-ip": "203.0.113.66",
  "x-request-id": "forged-request-id-0001",
  "x-nonce": "forged-nonce",
  "x-bank-connect-path": "/forged",
  "content-security-policy": "script-src 'nonce-forged'",
  "content-security-policy-report-only": "script-src 'nonce-forged'",
};

let server: RunningServiceServer;
/** The headers of every Request a direct-lane handler was given. */
const handedToDirectHandlers: Headers[] = [];

beforeAll(async () => {
  server = await startServiceServer({
    // The real routes and handlers, each Request they are given noted on its way in.
    directRoute: (method, pathname) => {
      const found = matchDirectRoute(method, pathname);
      if (!found) return null;
      return {
        params: found.params,
        handler: (request, context) => {
          handedToDirectHandlers.push(new Headers(request.headers));
          return found.handler(request, context);
        },
      };
    },
  });
});
afterAll(() => server.close());

describe("internal request headers", () => {
  it("forges every header the service sets itself in these tests", () => {
    expect(Object.keys(FORGED).sort()).toEqual([...INTERNAL_REQUEST_HEADERS].sort());
  });

  it("writes the socket's address into the audit log of token and revoke, whatever client address a client sends", async () => {
    const client = await createTestClient();
    const exchange = async (headers: Record<string, string>) => {
      const verifier = newVerifier();
      const { code } = await issueCode(client, verifier);
      const response = await fetch(`${server.origin}/oauth/token`, {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Authorization: basicAuthorization(client.clientId, client.clientSecret),
          ...headers,
        },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
        }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { access_token: string }).access_token;
    };
    const forgedKey = await exchange({ "X-Bank-Connect-Client-Ip": "203.0.113.66" });
    const plainKey = await exchange({});
    await accessMailsSettled();
    for (const [key, headers] of [
      [forgedKey, { "X-Bank-Connect-Client-Ip": "203.0.113.66" }],
      [plainKey, {}],
    ] as const) {
      const revoked = await fetch(`${server.origin}/oauth/revoke`, {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Authorization: basicAuthorization(client.clientId, client.clientSecret),
          ...headers,
        },
        body: new URLSearchParams({ token: key }),
      });
      expect(revoked.status).toBe(200);
    }
    const events = await db().auditEvent.findMany({
      where: { clientId: client.clientId, type: { startsWith: "api_key." } },
      orderBy: { seq: "asc" },
    });
    expect(events.map((event) => [event.type, event.clientIp])).toEqual([
      ["api_key.issued", "127.0.0.1"],
      ["api_key.issued", "127.0.0.1"],
      ["api_key.revoked", "127.0.0.1"],
      ["api_key.revoked", "127.0.0.1"],
    ]);
  });

  it("hands a direct-lane handler only the service's own values", async () => {
    handedToDirectHandlers.length = 0;
    const answers = [
      await fetch(`${server.origin}/api/accounts`, { headers: FORGED }),
      await fetch(`${server.origin}/oauth/token`, {
        method: "POST",
        headers: { ...FORGED, "Content-Type": "application/x-www-form-urlencoded" },
        body: "grant_type=authorization_code",
      }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([401, 400]);
    expect(handedToDirectHandlers).toHaveLength(2);
    handedToDirectHandlers.forEach((headers, index) => {
      expect(headers.get("x-bank-connect-client-ip")).toBe("127.0.0.1");
      expect(headers.get("x-request-id")).toBe(answers[index]!.headers.get("x-request-id"));
      for (const name of EDGE_REQUEST_HEADERS) expect(headers.get(name)).toBeNull();
    });
  });

  it("hands Next only the service's own values, for a page and for a route handler", async () => {
    server.handedToNext.length = 0;
    const page = await fetch(`${server.origin}/consent`, { headers: FORGED });
    const route = await fetch(`${server.origin}/api/partner/me`, { headers: FORGED });
    expect([page.status, route.status]).toEqual([404, 404]);
    const [toPage, toRoute] = server.handedToNext.map((handed) => handed.headers);
    for (const [headers, answer] of [
      [toPage, page],
      [toRoute, route],
    ] as const) {
      expect(headers?.["x-bank-connect-client-ip"]).toBe("127.0.0.1");
      expect(headers?.["x-request-id"]).toBe(answer.headers.get("x-request-id"));
      expect(headers?.["content-security-policy-report-only"]).toBeUndefined();
    }
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(toPage?.["content-security-policy"]).toBe(csp);
    expect(csp).toContain(`'nonce-${toPage?.["x-nonce"]}'`);
    expect(toPage?.["x-bank-connect-path"]).toBe("/consent");
    for (const name of EDGE_REQUEST_HEADERS) expect(toRoute?.[name]).toBeUndefined();
  });
});

/** One request written as raw bytes (fetch cannot send these targets); the answer's head. */
function rawExchange(head: string): Promise<{ status: number; headers: Map<string, string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const [statusLine = "", ...lines] = Buffer.concat(chunks)
        .toString("latin1")
        .split("\r\n\r\n")[0]!
        .split("\r\n");
      const headers = new Map<string, string>();
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers });
    });
    socket.write(`${head}\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  });
}

describe("request targets", () => {
  it("answers 400 to an asterisk-form or absolute-form target, with no redirect and nothing cacheable", async () => {
    server.handedToNext.length = 0;
    for (const head of [
      "GET * HTTP/1.1",
      "OPTIONS * HTTP/1.1",
      "HEAD * HTTP/1.1",
      "GET http://evil.example/login HTTP/1.1",
      "GET https://evil.example/ HTTP/1.1",
      "GET http://127.0.0.1/consent HTTP/1.1",
      "POST http://evil.example/oauth/token HTTP/1.1\r\nContent-Length: 0",
    ]) {
      const answer = await rawExchange(head);
      expect(answer.status, head).toBe(400);
      expect(answer.headers.has("location"), head).toBe(false);
      expect(answer.headers.get("cache-control"), head).toBe("no-store");
      expect(answer.headers.get("x-content-type-options"), head).toBe("nosniff");
    }
    expect(server.handedToNext).toEqual([]);
  });

  it("still serves a path target", async () => {
    expect((await rawExchange("GET /healthz HTTP/1.1")).status).toBe(200);
    expect((await rawExchange("OPTIONS /consent HTTP/1.1")).status).toBe(404);
    expect(server.handedToNext.at(-1)).toMatchObject({ method: "OPTIONS", url: "/consent" });
  });
});

/** A path the route serves: each `[name]` a segment, `[...name]` two. */
const pathOf = (route: string) =>
  route.replace(/\[\.\.\.[^\]]+\]/g, "a/b").replace(/\[[^\]]+\]/g, "x1");

const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
  body: new URLSearchParams(fields),
});

describe("405s and authentication challenges", () => {
  it("answers every method a route handler does not serve with 405 and Allow naming those it does", async () => {
    server.handedToNext.length = 0;
    let refused = 0;
    for (const route of Object.keys(ROUTE_METHODS)) {
      const path = pathOf(route);
      const allowed = allowedMethods(path) ?? [];
      expect(allowed, route).toContain("OPTIONS");
      for (const method of SERVED_METHODS) {
        if (allowed.includes(method)) continue;
        const answer = await fetch(`${server.origin}${path}`, { method });
        expect(answer.status, `${method} ${route}`).toBe(405);
        expect(answer.headers.get("allow"), `${method} ${route}`).toBe(allowed.join(", "));
        expect(await answer.text()).toBe("");
        refused += 1;
      }
    }
    expect(refused).toBeGreaterThan(100);
    expect(server.handedToNext).toEqual([]);
    const named = async (method: string, path: string) =>
      (await fetch(`${server.origin}${path}`, { method })).headers.get("allow");
    expect(await named("GET", "/oauth/token")).toBe("OPTIONS, POST");
    expect(await named("GET", "/oauth/revoke")).toBe("OPTIONS, POST");
    expect(await named("POST", "/oauth/authorize")).toBe("GET, HEAD, OPTIONS");
    expect(await named("PUT", "/.well-known/oauth-authorization-server")).toBe(
      "GET, HEAD, OPTIONS",
    );
  });

  it("challenges a failed client authentication with Basic, whichever way the client authenticated", async () => {
    const client = await createTestClient();
    const exchange = { grant_type: "authorization_code", code: "c", code_verifier: "v".repeat(43) };
    const attempts = [
      ["/oauth/token", form({ ...exchange, client_id: client.clientId, client_secret: "wrong" })],
      ["/oauth/token", form(exchange)],
      [
        "/oauth/token",
        form(exchange, { Authorization: basicAuthorization(client.clientId, "wrong") }),
      ],
      [
        "/oauth/revoke",
        form({ token: "ebk_x", client_id: client.clientId, client_secret: "wrong" }),
      ],
      ["/oauth/revoke", form({ token: "ebk_x" })],
    ] as const;
    for (const [path, init] of attempts) {
      const answer = await fetch(`${server.origin}${path}`, init);
      expect(answer.status, path).toBe(401);
      expect(answer.headers.get("www-authenticate"), path).toBe('Basic realm="oauth"');
      expect(await answer.json()).toMatchObject({ error: "invalid_client" });
    }
  });

  it("challenges a request without an API key without an error code, and a bad key with invalid_token", async () => {
    for (const path of ["/api/accounts", "/api/connections", "/oauth/userinfo"]) {
      const missing = await fetch(`${server.origin}${path}`);
      expect(missing.status, path).toBe(401);
      expect(missing.headers.get("www-authenticate"), path).toBe('Bearer realm="api"');
      expect(await missing.json()).toMatchObject({ error: "invalid_token" });
      const badKeys: Record<string, string>[] = [
        { Authorization: "Bearer ebk_unknown" },
        { "X-Api-Key": "ebk_x" },
      ];
      for (const headers of badKeys) {
        const invalid = await fetch(`${server.origin}${path}`, { headers });
        expect(invalid.status, path).toBe(401);
        expect(invalid.headers.get("www-authenticate"), path).toBe('Bearer error="invalid_token"');
        expect(await invalid.json()).toMatchObject({ error: "invalid_token" });
      }
    }
  });
});
