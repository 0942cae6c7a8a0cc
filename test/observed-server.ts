import { randomInt } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as syncRoute from "../app/api/accounts/[id]/sync/route";
import * as transactionsRoute from "../app/api/accounts/[id]/transactions/route";
import * as accountsRoute from "../app/api/accounts/route";
import * as tokenRoute from "../app/oauth/token/route";
import { edge } from "../lib/http/edge";
import { observeRequest } from "../lib/http/observe";
import { pathnameOf } from "../lib/http/body-limits";
import { ISSUER } from "./oauth-fixtures";

/**
 * A real HTTP server on loopback that does what the service's server does
 * around a request (scripts/lib/http-server.ts: observeRequest, then the
 * edge) and hands what passes to the app's own route handlers for the token
 * exchange and the data API. Next's router is the one thing replaced: a
 * table of the routes these tests call.
 */

type Handler = (request: Request, params: Record<string, string>) => Promise<Response>;
const context = (params: Record<string, string>) => ({ params: Promise.resolve(params) });

const ROUTES: [string, RegExp, Handler][] = [
  ["POST", /^\/oauth\/token$/, (request) => tokenRoute.POST(request)],
  ["GET", /^\/api\/accounts$/, (request) => accountsRoute.GET(request, {})],
  [
    "GET",
    /^\/api\/accounts\/(?<id>[^/]+)\/transactions$/,
    (request, params) => transactionsRoute.GET(request, context(params)),
  ],
  [
    "POST",
    /^\/api\/accounts\/(?<id>[^/]+)\/sync$/,
    (request, params) => syncRoute.POST(request, context(params)),
  ],
];

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function dispatch(request: IncomingMessage, response: ServerResponse, clientIp: string) {
  const method = request.method ?? "GET";
  const pathname = pathnameOf(request.url ?? "/");
  const outcome = await edge(
    { method, pathname, clientIp, authorization: request.headers.authorization },
    { https: false, development: false },
  );
  if ("answer" in outcome) {
    response.writeHead(outcome.answer.status, outcome.answer.headers);
    request.resume();
    return void response.end(outcome.answer.body ?? undefined);
  }
  const route = ROUTES.find(([verb, pattern]) => verb === method && pattern.test(pathname));
  if (!route) {
    request.resume();
    return void response.writeHead(404).end();
  }
  const body =
    method === "GET" || method === "HEAD" ? undefined : new Uint8Array(await readBody(request));
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === "string") headers.set(name, value);
  }
  const fetchRequest = new Request(`${ISSUER}${request.url ?? "/"}`, { method, headers, body });
  const answer = await route[2](fetchRequest, { ...route[1].exec(pathname)?.groups });
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  response.end(Buffer.from(await answer.arrayBuffer()));
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
