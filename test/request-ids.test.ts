import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { observeRequest } from "../lib/http/observe";
import { log } from "../lib/log";

/**
 * Every request has an id: a trusted proxy's well-formed X-Request-Id or a
 * new one, echoed in the response and on every log line written for it.
 */

async function serve(trustedProxyHops: number) {
  const server = createServer((request, response) =>
    observeRequest(request, response, trustedProxyHops, () => {
      // Asynchronous on purpose: the id must survive the awaits of a handler.
      void Promise.resolve().then(async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.info("test.inside_request", { path: request.url });
        response.end("ok");
      });
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, close: () => new Promise((resolve) => server.close(resolve)) };
}

afterEach(() => vi.restoreAllMocks());

function loggedLines(): () => Record<string, unknown>[] {
  const written = vi.spyOn(process.stdout, "write");
  return () =>
    written.mock.calls
      .map((call) => String(call[0]))
      .filter((text) => text.includes('"event":"test.inside_request"'))
      .map((text) => JSON.parse(text) as Record<string, unknown>);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("request ids", () => {
  it("makes one per request, echoes it and puts it on the request's log lines", async () => {
    const server = await serve(0);
    const lines = loggedLines();
    const first = await fetch(`${server.origin}/a`);
    const second = await fetch(`${server.origin}/b`, {
      headers: { "X-Request-Id": "client-chosen-id-123" },
    });
    await server.close();
    const ids = [first, second].map((response) => response.headers.get("x-request-id") ?? "");
    for (const id of ids) expect(id).toMatch(UUID);
    expect(ids[0]).not.toBe(ids[1]);
    // Without a trusted proxy, a client's own id is not taken.
    expect(lines().map((line) => [line.path, line.requestId])).toEqual([
      ["/a", ids[0]],
      ["/b", ids[1]],
    ]);
  });

  it("takes a trusted proxy's well-formed id, and replaces a malformed one", async () => {
    const server = await serve(1);
    const lines = loggedLines();
    const kept = await fetch(`${server.origin}/a`, {
      headers: { "X-Request-Id": "edge-7f3a9c21.b" },
    });
    const tooShort = await fetch(`${server.origin}/b`, { headers: { "X-Request-Id": "abc" } });
    const oddCharacters = await fetch(`${server.origin}/c`, {
      headers: { "X-Request-Id": '"><script>alert(1)</script>' },
    });
    await server.close();
    expect(kept.headers.get("x-request-id")).toBe("edge-7f3a9c21.b");
    expect(tooShort.headers.get("x-request-id")).toMatch(UUID);
    expect(oddCharacters.headers.get("x-request-id")).toMatch(UUID);
    expect(lines()[0]?.requestId).toBe("edge-7f3a9c21.b");
  });
});
