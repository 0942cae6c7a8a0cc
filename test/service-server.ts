import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { matchDirectRoute } from "../lib/api/direct-routes";
import { discoveryAnswer } from "../lib/oauth/discovery";
import { createServiceServer } from "../scripts/lib/service-server";
import { ISSUER } from "./oauth-fixtures";

/**
 * The service's own HTTP server (scripts/lib/service-server.ts) on loopback,
 * exactly as production runs it, with one stand-in: what production hands to
 * Next is recorded (method, target and the headers Next would read) and
 * answered 404 here, so no build is needed.
 */

export interface HandedToNext {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface RunningServiceServer {
  origin: string;
  port: number;
  handedToNext: HandedToNext[];
  close(): Promise<void>;
}

export async function startServiceServer(
  options: { directRoute?: typeof matchDirectRoute } = {},
): Promise<RunningServiceServer> {
  const handedToNext: HandedToNext[] = [];
  const server = createServiceServer({
    trustedProxyHops: 0,
    settings: { https: false, development: false, constants: discoveryAnswer },
    origin: ISSUER,
    next: {
      async handle(request, response) {
        handedToNext.push({
          method: request.method ?? "",
          url: request.url ?? "",
          headers: { ...request.headers },
        });
        request.resume();
        response.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      },
    },
    ...(options.directRoute ? { directRoute: options.directRoute } : {}),
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    handedToNext,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
