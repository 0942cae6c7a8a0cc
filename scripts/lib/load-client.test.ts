import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { httpClient } from "./load-client";

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

/**
 * A server that answers the first request of each connection and closes the
 * connection, unread, when a second request arrives on it: what a server does
 * to a kept-alive connection whose idle time ran out as the request was sent.
 */
async function closingServer(): Promise<{ origin: string; connections: () => number }> {
  let connections = 0;
  const served = new WeakSet<object>();
  server = createServer((request, response) => {
    if (served.has(request.socket)) {
      request.socket.destroy();
      return;
    }
    served.add(request.socket);
    response.end("ok");
  });
  server.on("connection", () => (connections += 1));
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, connections: () => connections };
}

describe("the load client", () => {
  it("sends a request again on a new connection when a kept-alive one was closed under it, and counts it", async () => {
    const { origin, connections } = await closingServer();
    const http = httpClient(origin, 1);
    const first = await http({ path: "/" });
    expect(first).toMatchObject({ status: 200, body: "ok", retries: 0 });
    const second = await http({ path: "/" });
    expect(second).toMatchObject({ status: 200, body: "ok", retries: 1 });
    expect(connections()).toBe(2);
  });

  it("does not send again a request whose first connection was new", async () => {
    server = createServer((request) => request.socket.destroy());
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const http = httpClient(`http://127.0.0.1:${port}`, 1);
    await expect(http({ path: "/" })).rejects.toMatchObject({ code: "ECONNRESET" });
  });
});
