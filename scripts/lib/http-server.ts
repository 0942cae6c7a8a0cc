import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import next from "next";
import { getEnv } from "../../lib/env";
import { log } from "../../lib/log";
import { CLIENT_IP_HEADER, resolveClientIp } from "../../lib/http/client-ip";
import { methodRefusal, type EdgeSettings } from "../../lib/http/edge";
import { discoveryAnswer } from "../../lib/oauth/discovery";
import { observeRequest } from "../../lib/http/observe";
import { startTracingFromSettings } from "../../lib/tracing/setup";
import { guardRequestBody, GuardedIncomingMessage, judgeDeclaredBody } from "./body-guard";
import { REPO_ROOT } from "./database";
import { answerBeforeNext, writeAnswer } from "./before-next";

/**
 * The service's HTTP server: Next's request handler behind a plain Node
 * server, and the only way the service is started (docs/edge.md). Before Next
 * sees a request it:
 * - refuses methods Next would answer with a 500;
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
  const tracing = startTracingFromSettings();
  const app = next({
    dev: options.dev,
    dir: REPO_ROOT,
    port: options.port,
    turbopack: options.dev,
  });
  await app.prepare();
  const handle = app.getRequestHandler();
  const upgrade = app.getUpgradeHandler();

  const env = getEnv();
  const settings: EdgeSettings = {
    https: env.issuer.startsWith("https://"),
    development: env.nodeEnv === "development",
    constants: discoveryAnswer,
  };

  const origin = new URL(env.issuer).origin;
  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    if (await answerBeforeNext(request, response, settings, origin)) return;
    await handle(request, response);
  };

  const onRequest = (request: GuardedIncomingMessage, response: ServerResponse) =>
    observeRequest(request, response, options.trustedProxyHops, () => {
      // Next answers TRACE (and methods it does not know) with a 500.
      const refusal = methodRefusal(request.method ?? "", settings);
      if (refusal) return writeAnswer(request, response, refusal);
      stampClientIp(request, options.trustedProxyHops);
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
      await tracing?.shutdown();
    },
  };
}
