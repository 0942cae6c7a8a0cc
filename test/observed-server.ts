import { randomInt } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CLIENT_IP_HEADER } from "../lib/http/client-ip";
import { observeRequest } from "../lib/http/observe";
import { answerBeforeNext } from "../scripts/lib/before-next";
import { ISSUER } from "./oauth-fixtures";

/**
 * A real HTTP server on loopback that does what the service's server does
 * with a request before Next (scripts/lib/service-server.ts: observeRequest,
 * the edge, the partner API's direct routes), so the token exchange and the
 * data API run exactly as in production. What would go on to Next answers 404.
 */

async function dispatch(request: IncomingMessage, response: ServerResponse, clientIp: string) {
  request.headers[CLIENT_IP_HEADER] = clientIp;
  const settings = { https: false, development: false };
  if (await answerBeforeNext(request, response, settings, ISSUER)) return;
  request.resume();
  response.writeHead(404).end();
}

export interface ObservedServer {
  origin: string;
  close(): Promise<void>;
}

/** Starts the server; every request comes from one client address, fresh per server. */
export async function startObservedServer(
  options: { trustedProxyHops?: number } = {},
): Promise<ObservedServer> {
  const clientIp = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
  const server = createServer((request, response) =>
    observeRequest(request, response, options.trustedProxyHops ?? 0, () => {
      dispatch(request, response, clientIp).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500);
        response.end(String(error));
      });
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
