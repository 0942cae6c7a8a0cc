import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import next from "next";
import { CLIENT_IP_HEADER, resolveClientIp } from "../../lib/http/client-ip";
import { SERVED_METHODS } from "../../lib/http/request-guards";
import { guardRequestBody, GuardedIncomingMessage, judgeDeclaredBody } from "./body-guard";
import { REPO_ROOT } from "./database";

/**
 * The service's HTTP server: Next's request handler behind a plain Node
 * server. It exists for one reason: only here is the socket address known, so
 * only here can the client address be stamped on the request from trusted
 * sources (DESIGN.md §8). `next start` alone keeps a client-sent
 * X-Forwarded-For as the client address, which would let anyone pick their
 * own rate-limit bucket.
 */

export interface RunningServer {
  close(): Promise<void>;
}

function stampClientIp(request: IncomingMessage, trustedProxyHops: number) {
  request.headers[CLIENT_IP_HEADER] = resolveClientIp(
    request.socket.remoteAddress,
    request.headers["x-forwarded-for"],
    trustedProxyHops,
  );
}

export async function serveNext(options: {
  dev: boolean;
  port: number;
  trustedProxyHops: number;
}): Promise<RunningServer> {
  const app = next({
    dev: options.dev,
    dir: REPO_ROOT,
    port: options.port,
    turbopack: options.dev,
  });
  await app.prepare();
  const handle = app.getRequestHandler();
  const upgrade = app.getUpgradeHandler();

  const onRequest = (request: GuardedIncomingMessage, response: ServerResponse) => {
    // Next answers TRACE (and methods it does not know) with a 500 before the proxy runs.
    if (!SERVED_METHODS.has(request.method ?? "")) {
      response.writeHead(405, { Allow: [...SERVED_METHODS].join(", "), "Content-Length": "0" });
      response.end();
      return;
    }
    stampClientIp(request, options.trustedProxyHops);
    // Oversize bodies are refused before Next sees them (scripts/lib/body-guard.ts).
    guardRequestBody(request, response, () => {
      handle(request, response).catch((error: unknown) => {
        console.error("[bank-connect] request failed", error);
        if (!response.headersSent) response.writeHead(500);
        response.end();
      });
    });
  };
  const server = createServer({ IncomingMessage: GuardedIncomingMessage }, onRequest);
  // `Expect: 100-continue`: a body that will be refused is refused before it is sent.
  server.on("checkContinue", (request: GuardedIncomingMessage, response: ServerResponse) => {
    if (judgeDeclaredBody(request).verdict !== "too_large") response.writeContinue();
    onRequest(request, response);
  });
  // Development hot reloading runs over WebSocket upgrades.
  server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    stampClientIp(request, options.trustedProxyHops);
    void upgrade(request, socket, head);
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, resolve);
  });

  return {
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}
