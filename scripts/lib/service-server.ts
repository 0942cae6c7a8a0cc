import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { matchDirectRoute } from "../../lib/api/direct-routes";
import { CLIENT_IP_HEADER, resolveClientIp } from "../../lib/http/client-ip";
import { methodRefusal, targetRefusal, type EdgeSettings } from "../../lib/http/edge";
import { observeRequest } from "../../lib/http/observe";
import { log } from "../../lib/log";
import { answerBeforeNext, writeAnswer } from "./before-next";
import { guardRequestBody, GuardedIncomingMessage, judgeDeclaredBody } from "./body-guard";

/**
 * The service's HTTP server around whatever routes the rest (Next's request
 * handler in production, scripts/lib/http-server.ts). Before that handler
 * sees a request it:
 * - refuses methods Next would answer with a 500, and request targets that
 *   are not a path (`OPTIONS *`, `GET http://host/…`) with a 400;
 * - stamps the client address from trusted sources only: only here is the
 *   socket address known (`next start` alone keeps a client-sent
 *   X-Forwarded-For as the client address, which would let anyone pick their
 *   own rate-limit bucket);
 * - refuses oversize bodies (body-guard.ts);
 * - runs the edge (lib/http/edge.ts): request guards, rate limits, constant
 *   documents, security headers and the pages' CSP nonce. Doing this here
 *   rather than in Next's middleware costs a fraction of the CPU per request;
 * - answers the partner API's hot paths from their handlers without Next
 *   (before-next.ts, lib/api/direct-routes.ts).
 *
 * Every handler, on either lane, reads the request's headers as stamped
 * here and left by the edge, never the pairs the client sent (docs/edge.md).
 */

export interface RoutingHandlers {
  /** Answers what the server does not answer itself. */
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>;
  /** WebSocket upgrades (development hot reloading). */
  upgrade?(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void>;
}

export interface ServiceServerOptions {
  trustedProxyHops: number;
  settings: EdgeSettings;
  /** The issuer's origin: the base of the fetch Requests the direct lane makes. */
  origin: string;
  next: RoutingHandlers;
  /** The direct lane's routes (lib/api/direct-routes.ts). */
  directRoute?: typeof matchDirectRoute;
}

function stampClientIp(request: IncomingMessage, trustedProxyHops: number) {
  request.headers[CLIENT_IP_HEADER] = resolveClientIp(
    request.socket.remoteAddress,
    request.headers["x-forwarded-for"],
    trustedProxyHops,
  );
}

/** The server, not yet listening. */
export function createServiceServer(options: ServiceServerOptions): Server {
  const { trustedProxyHops, settings, origin, next } = options;
  const directRoute = options.directRoute ?? matchDirectRoute;

  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    if (await answerBeforeNext(request, response, settings, origin, directRoute)) return;
    await next.handle(request, response);
  };

  const onRequest = (request: GuardedIncomingMessage, response: ServerResponse) =>
    observeRequest(request, response, trustedProxyHops, () => {
      // Next answers TRACE (and methods it does not know) with a 500.
      const refusal =
        methodRefusal(request.method ?? "", settings) ?? targetRefusal(request.url ?? "", settings);
      if (refusal) return writeAnswer(request, response, refusal);
      stampClientIp(request, trustedProxyHops);
      // Oversize bodies are refused before Next sees them (scripts/lib/body-guard.ts).
      guardRequestBody(request, response, () => {
        serve(request, response).catch((error: unknown) => {
          log.error("http.request_failed", { error });
          if (!response.headersSent) response.writeHead(500);
          response.end();
        });
      });
    });
  const server = createServer({ IncomingMessage: GuardedIncomingMessage }, onRequest);
  // `Expect: 100-continue`: a body that will be refused is refused before it is sent.
  server.on("checkContinue", (request: GuardedIncomingMessage, response: ServerResponse) => {
    if (judgeDeclaredBody(request).verdict !== "too_large") response.writeContinue();
    onRequest(request, response);
  });
  const upgrade = next.upgrade;
  if (upgrade) {
    server.on("upgrade", (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (targetRefusal(request.url ?? "", settings)) {
        socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
        return;
      }
      stampClientIp(request, trustedProxyHops);
      void upgrade(request, socket, head);
    });
  }
  return server;
}
