import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonResponse } from "../lib/http/respond";
import { runInRequest } from "../lib/request-context";
import { acceptsGzip, answerDirectly, COMPRESS_FROM_BYTES } from "../scripts/lib/direct-lane";
import { exchangeBytes } from "../scripts/lib/load-client";
import { observedJourney } from "./observed-journey";
import { startObservedServer, type ObservedServer } from "./observed-server";

/**
 * The partner API answered by the service's own HTTP server without Next
 * (scripts/lib/before-next.ts), over real HTTP against real PostgreSQL.
 */

let server: ObservedServer;
let apiKey: string;
beforeAll(async () => {
  server = await startObservedServer();
  ({ apiKey } = await observedJourney(server.origin));
});
afterAll(() => server.close());

function get(path: string, headers: Record<string, string>) {
  const { hostname, port } = new URL(server.origin);
  return exchangeBytes({ hostname, port, path, headers }, undefined);
}

describe("the direct lane", () => {
  it("gzips a large answer for a client that accepts it, and sends the same bytes plain otherwise", async () => {
    const authorization = `Bearer ${apiKey}`;
    const plain = await get("/api/accounts", { authorization });
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toBe("Accept-Encoding");
    expect(plain.body.length).toBeGreaterThanOrEqual(COMPRESS_FROM_BYTES);
    expect(Number(plain.headers["content-length"])).toBe(plain.body.length);

    const zipped = await get("/api/accounts", { authorization, "accept-encoding": "br, gzip" });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(plain.body.length);

    const refused = await get("/api/accounts", { authorization, "accept-encoding": "gzip;q=0, *" });
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(refused.body.equals(plain.body)).toBe(true);
  });

  it("leaves a small answer plain and keeps the edge's headers and the handler's own", async () => {
    const refused = await get("/api/accounts", { "accept-encoding": "gzip" });
    expect(refused.status).toBe(401);
    expect(refused.headers["content-encoding"]).toBeUndefined();
    expect(refused.headers["www-authenticate"]).toBe('Bearer realm="api"');
    expect(refused.headers["x-frame-options"]).toBe("DENY");
    expect(refused.headers["content-security-policy"]).toBe(
      "default-src 'none'; frame-ancestors 'none'",
    );
    expect(refused.headers["x-request-id"]).toEqual(expect.any(String));
  });

  it("answers only a target that is its own path: dot segments and other methods go on to Next", async () => {
    // The observed server answers 404 where the real one hands the request to Next.
    expect((await get("/api/x/../accounts", { authorization: `Bearer ${apiKey}` })).status).toBe(
      404,
    );
    const { hostname, port } = new URL(server.origin);
    const head = (
      await exchangeBytes({ hostname, port, path: "/api/accounts", method: "HEAD" }, undefined)
    ).status;
    expect(head).toBe(404);
  });
});

describe("acceptsGzip", () => {
  it("reads Accept-Encoding with its weights", () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip("")).toBe(false);
    expect(acceptsGzip("gzip")).toBe(true);
    expect(acceptsGzip("br, GZIP;q=0.5")).toBe(true);
    expect(acceptsGzip("gzip;q=0")).toBe(false);
    expect(acceptsGzip("gzip; q=0.0, *")).toBe(false);
    expect(acceptsGzip("*")).toBe(true);
    expect(acceptsGzip("*;q=0")).toBe(false);
    expect(acceptsGzip("br, deflate")).toBe(false);
    expect(acceptsGzip("identity")).toBe(false);
  });
});

describe("a direct route's answer", () => {
  /** Answers every request from `handler` through the direct lane; resolves the answer's Response too. */
  async function serveOnce(handler: () => Response) {
    let made: Response | undefined;
    const lane = createServer((request, response) => {
      // As the service's server does: every request runs in its own context.
      void runInRequest({ requestId: "direct-lane-test" }, () =>
        answerDirectly(
          request,
          response,
          {
            handler: async () => {
              made = handler();
              return made;
            },
            params: {},
          },
          "http://localhost",
        ),
      );
    });
    await new Promise<void>((resolve) => lane.listen(0, "127.0.0.1", resolve));
    const { port } = lane.address() as AddressInfo;
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/`);
      return { answer, text: await answer.text(), made: made! };
    } finally {
      lane.close();
    }
  }

  it("is written from the JSON text it was made with, its stream left unread", async () => {
    const { answer, text, made } = await serveOnce(() => jsonResponse({ hello: "wörld" }));
    expect(text).toBe('{"hello":"wörld"}');
    expect(Number(answer.headers.get("content-length"))).toBe(Buffer.byteLength(text));
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(made.bodyUsed).toBe(false);
    // Made while the direct route's handler ran: no stream was made for it at all.
    expect(made.body).toBeNull();
  });

  it("keeps its body stream when it is made for Next, in the same request's context", async () => {
    const made = runInRequest({ requestId: "next-route-test" }, () =>
      jsonResponse({ hello: "wörld" }),
    );
    expect(await made.text()).toBe('{"hello":"wörld"}');
  });

  it("is read from its stream when it was made otherwise", async () => {
    const { text, made } = await serveOnce(() => new Response("plain text", { status: 202 }));
    expect(text).toBe("plain text");
    expect(made.bodyUsed).toBe(true);
  });
});
