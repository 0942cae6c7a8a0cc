import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { bodyLimitFor, bodyTooLargeAnswer } from "../../lib/http/body-limits";
import { decodeBody } from "./http";
import { dotSegmentTarget, judge, nodeParserRefusal } from "./oracle";
import type { Answer, Endpoint, FuzzRequest } from "./types";

const endpoint = (
  family: Endpoint["family"],
  methods: Endpoint["methods"] = ["GET", "POST"],
): Endpoint => ({ name: "/x", family, methods });
const request = (
  family: Endpoint["family"],
  method = "POST",
  extra: Partial<FuzzRequest> = {},
): FuzzRequest => ({
  endpoint: endpoint(family),
  kind: "test",
  method,
  path: "/x",
  headers: {},
  seed: 1,
  index: 0,
  ...extra,
});
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Answer => ({
  status,
  headers: { "content-type": "application/json; charset=utf-8", ...headers },
  body: Buffer.from(JSON.stringify(body)),
});
const html = (status: number, text: string): Answer => ({
  status,
  headers: { "content-type": "text/html; charset=utf-8" },
  body: Buffer.from(text),
});
const bare = (status: number, headers: Record<string, string> = {}): Answer => ({
  status,
  headers,
  body: Buffer.alloc(0),
});

describe("the fuzz oracle", () => {
  it("accepts the HTTP server's 413 only for a body over the path's limit, in its shape", () => {
    const limit = bodyLimitFor("/oauth/token");
    const token = (size: number) =>
      request("oauth-token", "POST", { path: "/oauth/token", body: Buffer.alloc(size) });
    const refusal = bodyTooLargeAnswer("/oauth/token", limit);
    const answer: Answer = {
      status: 413,
      headers: { "content-type": refusal.contentType },
      body: Buffer.from(refusal.body),
    };
    expect(judge(token(limit + 1), answer)).toEqual([]);
    expect(judge(token(limit), answer)).not.toEqual([]);
    const page = bodyTooLargeAnswer("/", bodyLimitFor("/"));
    expect(judge(token(limit + 1), { ...answer, body: Buffer.from(page.body) })).not.toEqual([]);
  });

  it("rejects every 5xx, whatever its body", () => {
    expect(
      judge(request("oauth-token"), json(500, { error: "server_error", error_description: "x" })),
    ).not.toEqual([]);
    expect(judge(request("page", "GET"), html(503, "<p>down</p>"))).not.toEqual([]);
    expect(
      judge(
        request("sync"),
        json(503, { status: 503, reason: "transient" }, { "retry-after": "5" }),
      ),
    ).not.toEqual([]);
  });

  it("accepts the documented OAuth error and rejects a wrong-shaped or unknown one", () => {
    expect(
      judge(
        request("oauth-token"),
        json(400, { error: "invalid_grant", error_description: "used" }),
      ),
    ).toEqual([]);
    expect(judge(request("oauth-token"), json(400, { message: "bad" }))).not.toEqual([]);
    expect(
      judge(request("oauth-token"), json(400, { error: "bad_thing", error_description: "x" })),
    ).not.toEqual([]);
    expect(
      judge(request("oauth-token"), json(400, { error: "invalid_request", error_description: 3 })),
    ).not.toEqual([]);
  });

  it("rejects HTML where JSON is documented", () => {
    expect(judge(request("data", "GET"), html(404, "<h1>Not found</h1>"))).not.toEqual([]);
    expect(judge(request("oauth-token"), html(400, "<p>bad</p>"))).not.toEqual([]);
  });

  it("requires WWW-Authenticate: Basic on every 401 of the token endpoint, Bearer on the data API", () => {
    const basic = request("oauth-token", "POST", { headers: { authorization: "Basic eDp5" } });
    const inBody = request("oauth-token", "POST");
    for (const tokenRequest of [basic, inBody]) {
      expect(
        judge(tokenRequest, json(401, { error: "invalid_client", error_description: "x" })),
      ).toEqual(["a 401 without WWW-Authenticate: Basic"]);
      expect(
        judge(
          tokenRequest,
          json(
            401,
            { error: "invalid_client", error_description: "x" },
            { "www-authenticate": 'Basic realm="oauth"' },
          ),
        ),
      ).toEqual([]);
    }
    expect(
      judge(request("data", "GET"), json(401, { error: "invalid_token", error_description: "x" })),
    ).not.toEqual([]);
  });

  it("checks sync problems: status echoed, reason present", () => {
    expect(judge(request("sync"), json(400, { status: 400, reason: "invalid_request" }))).toEqual(
      [],
    );
    expect(
      judge(request("sync"), json(400, { status: 409, reason: "invalid_request" })),
    ).not.toEqual([]);
    expect(judge(request("sync"), json(400, { error: "invalid_request" }))).not.toEqual([]);
  });

  it("wants the service's 429 bare with an integer Retry-After", () => {
    expect(judge(request("data", "GET"), bare(429, { "retry-after": "12" }))).toEqual([]);
    expect(judge(request("data", "GET"), bare(429))).not.toEqual([]);
    expect(
      judge(request("data", "GET"), json(429, { error: "slow down" }, { "retry-after": "1" })),
    ).not.toEqual([]);
  });

  it("holds the passkey endpoints to JSON: a result, a 4xx {error}, or the sign-in limits' 429", () => {
    const post = request("passkey-json");
    expect(judge(post, json(200, { challengeId: "c", options: {} }))).toEqual([]);
    expect(judge(post, json(201, { id: "p", holdsKey: false }))).toEqual([]);
    expect(judge(post, json(400, { error: "passkey_invalid" }))).toEqual([]);
    expect(judge(post, json(409, { error: "last_key_holder", error_description: "x" }))).toEqual(
      [],
    );
    expect(
      judge(post, json(429, { error: "throttled", retryAfter: 30 }, { "retry-after": "30" })),
    ).toEqual([]);
    expect(judge(post, json(429, { error: "throttled", retryAfter: 30 }))).not.toEqual([]);
    expect(judge(post, json(429, { error: "slow" }, { "retry-after": "1" }))).not.toEqual([]);
    expect(judge(post, html(400, "<h1>Bad</h1>"))).not.toEqual([]);
    expect(judge(post, json(422, { error: "x" }))).not.toEqual([]);
    expect(judge(post, bare(500))).not.toEqual([]);
  });

  it("takes a bodiless 405 with Allow for a method the route does not export, and only then", () => {
    const refused = bare(405, { allow: "OPTIONS, POST" });
    expect(judge(request("oauth-token", "PUT"), refused)).toEqual([]);
    expect(judge(request("oauth-token", "PUT"), bare(405))).toEqual(["a 405 without Allow"]);
    expect(judge(request("oauth-token", "POST"), refused)).not.toEqual([]);
    expect(
      judge(
        request("oauth-token", "PUT"),
        json(400, { error: "invalid_request", error_description: "x" }),
      ),
    ).not.toEqual([]);
  });

  it("rejects an authorize relay that hides a server_error", () => {
    const relay = (error: string) =>
      html(
        200,
        `<form id="relay" method="post" action="x"><input type="hidden" name="error" value="${error}"></form>`,
      );
    expect(judge(request("authorize", "GET"), relay("invalid_request"))).toEqual([]);
    expect(judge(request("authorize", "GET"), relay("server_error"))).not.toEqual([]);
    expect(judge(request("authorize", "GET"), html(200, "<p>hello</p>"))).not.toEqual([]);
  });

  it("holds a flow form's refusal to a bare 400 or 403", () => {
    expect(judge(request("flow-form"), bare(403))).toEqual([]);
    expect(judge(request("flow-form"), bare(400))).toEqual([]);
    expect(judge(request("flow-form"), bare(401))).not.toEqual([]);
    expect(judge(request("flow-form"), json(400, { error: "invalid_body" }))).not.toEqual([]);
  });

  it("rejects a redirect without Location and oversized answer headers", () => {
    expect(judge(request("flow-form"), bare(303))).not.toEqual([]);
    expect(judge(request("flow-form"), bare(303, { location: "/login" }))).toEqual([]);
    expect(
      judge(request("flow-form"), bare(303, { location: `/login?email=${"a".repeat(20_000)}` })),
    ).not.toEqual([]);
  });

  it("holds a path whose dot segments lead elsewhere to where they lead", () => {
    expect(dotSegmentTarget("/api/connect/clients/../../branding")).toBe("/api/branding");
    expect(dotSegmentTarget("/api/accounts/%2e%2e/sync?x=1")).toBe("/api/sync");
    expect(dotSegmentTarget("/api/accounts/..x/sync")).toBeNull();
    const branding = request("public-json", "GET", { path: "/api/connect/clients/../branding" });
    // The catch-all's 401 for /api/connect/branding, not the branding route's 400/404.
    expect(
      judge(
        branding,
        json(
          401,
          { error: "invalid_token", error_description: "an API key is required" },
          { "www-authenticate": 'Bearer error="invalid_token"' },
        ),
      ),
    ).toEqual([]);
    expect(judge(branding, json(401, { error: "invalid_token" }))).toEqual([]);
    expect(judge(branding, html(404, "<h1>404</h1>"))).not.toEqual([]);
    expect(judge(branding, json(500, { error: "server_error" }))).not.toEqual([]);
    // `/api/partner/clients/../..` is /api/, which Next redirects to /api.
    const partner = request("partner", "PATCH", { path: "/api/partner/clients/../.." });
    expect(judge(partner, bare(308, { location: "/api" }))).toEqual([]);
    expect(judge(partner, bare(308))).not.toEqual([]);
  });

  it("takes the 400 of a malformed id path for any method, the route's or not", () => {
    const options = request("data", "OPTIONS", { path: "/api/%zz?country=DK" });
    const refusal = json(400, {
      error: "invalid_request",
      error_description: "the path is not valid percent-encoded UTF-8",
    });
    expect(judge(options, refusal)).toEqual([]);
    expect(judge(options, html(400, "<p>bad</p>"))).not.toEqual([]);
    // A well-formed path still gets Next's 405 for a method the route does not export.
    expect(judge(request("data", "PUT", { path: "/api/x" }), refusal)).not.toEqual([]);
  });

  it("leaves Next's own plain-text refusals under /_next/ to Next", () => {
    const image = request("page", "GET", { path: "/_next/image?url=x" });
    const refusal = { status: 400, headers: {}, body: Buffer.from('"url" parameter is invalid') };
    expect(judge(image, refusal)).toEqual([]);
    expect(judge(request("page", "GET", { path: "/consent?url=x" }), refusal)).not.toEqual([]);
  });

  it("takes Next's plain-text refusal of a server action POST to a page", () => {
    const unavailable: Answer = {
      status: 409,
      headers: { "content-type": "text/plain" },
      body: Buffer.from("Server Action unavailable."),
    };
    const multipart = { "content-type": "multipart/form-data" };
    expect(judge(request("page", "POST", { headers: multipart }), unavailable)).toEqual([]);
    expect(judge(request("page", "POST"), unavailable)).not.toEqual([]);
    expect(judge(request("page", "GET", { headers: multipart }), unavailable)).not.toEqual([]);
  });

  it("knows which requests Node's parser refuses before the service sees them", () => {
    expect(nodeParserRefusal(request("data", "GET", { path: "/api/\u00ff\u00fe" }))).toBe(400);
    expect(nodeParserRefusal(request("data", "GET", { path: "/api/x\u007f" }))).toBe(400);
    expect(
      nodeParserRefusal(request("data", "GET", { headers: { cookie: "a".repeat(17_000) } })),
    ).toBe(431);
    expect(nodeParserRefusal(request("data", "GET", { path: "/api/%C3%BF?q=<|>" }))).toBeNull();
  });

  it("judges a compressed answer by its decoded body", () => {
    const text = JSON.stringify({ status: "ok" });
    const headers = { "content-type": "application/json", "content-encoding": "gzip" };
    const body = decodeBody(headers, gzipSync(text));
    expect(body.toString("utf8")).toBe(text);
    expect(judge(request("public-json", "GET"), { status: 200, headers, body })).toEqual([]);
    // Bytes that do not decode stay as sent, and the oracle names them.
    const garbled = decodeBody(headers, Buffer.from("not gzip"));
    expect(
      judge(request("public-json", "GET"), { status: 200, headers, body: garbled }),
    ).not.toEqual([]);
  });

  it("wants HTML (or nothing) from pages", () => {
    expect(judge(request("page", "GET"), html(404, "<h1>404</h1>"))).toEqual([]);
    expect(judge(request("page", "GET"), json(404, { error: "x" }))).not.toEqual([]);
  });
});
