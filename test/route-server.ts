import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CLIENT_IP_HEADER, resolveClientIp } from "../lib/http/client-ip";
import { observeRequest } from "../lib/http/observe";
import { pathnameOf, requestWithBody } from "../lib/http/body-limits";
import { answerBeforeNext } from "../scripts/lib/before-next";
import { ISSUER } from "./oauth-fixtures";

/**
 * A real HTTP server on loopback that serves a few of the app's route
 * handlers the way the service's server does (scripts/lib/http-server.ts):
 * it stamps the client address from trusted sources only, one trusted proxy
 * hop, so each simulated client names its address in X-Forwarded-For as a
 * reverse proxy would; runs the edge (with the configured rate-limit store);
 * then hands the request, built from the stamped headers, to the route
 * module's export for its method (`app/…/route.ts`), as Next would.
 */

/** A route module's exports: a handler per method (and settings such as `dynamic`). */
type RouteModule = Record<string, unknown>;
type Handler = (
  request: Request,
  context: { params: Promise<Record<string, string>> },
) => Response | Promise<Response>;

export interface RouteServer {
  origin: string;
  close(): Promise<void>;
}

const TRUSTED_PROXY_HOPS = 1;

function toFetchRequest(request: IncomingMessage, body: Buffer | null): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const url = ISSUER + (request.url ?? "/");
  const method = request.method ?? "GET";
  return body === null
    ? new Request(url, { method, headers })
    : requestWithBody(url, { method, headers }, body);
}

/**
 * The route module for `pathname`: its own path, or a path with `[name]`
 * segments that fits it, with those segments' values (Next's `params`).
 */
function routeFor(
  routes: Record<string, RouteModule>,
  pathname: string,
): { module: RouteModule; params: Record<string, string> } | undefined {
  if (Object.hasOwn(routes, pathname)) return { module: routes[pathname] ?? {}, params: {} };
  const segments = pathname.split("/");
  const fits = (pattern: string) => {
    const parts = pattern.split("/");
    return (
      parts.length === segments.length &&
      parts.every((part, index) =>
        /^\[\w+\]$/.test(part) ? segments[index] !== "" : part === segments[index],
      )
    );
  };
  const pattern = Object.keys(routes).find(fits);
  if (pattern === undefined) return undefined;
  const params: Record<string, string> = {};
  pattern.split("/").forEach((part, index) => {
    const name = /^\[(\w+)\]$/.exec(part)?.[1];
    if (name) params[name] = decodeURIComponent(segments[index] ?? "");
  });
  return { module: routes[pattern] ?? {}, params };
}

async function dispatch(
  request: IncomingMessage,
  response: ServerResponse,
  routes: Record<string, RouteModule>,
) {
  request.headers[CLIENT_IP_HEADER] = resolveClientIp(
    request.socket.remoteAddress,
    request.headers["x-forwarded-for"],
    TRUSTED_PROXY_HOPS,
  );
  const settings = { https: false, development: false };
  if (await answerBeforeNext(request, response, settings, ISSUER)) return;
  const method = request.method ?? "GET";
  const route = routeFor(routes, pathnameOf(request.url ?? "/"));
  const handler = route?.module[method];
  if (typeof handler !== "function") {
    request.resume();
    response.writeHead(404).end();
    return;
  }
  let body: Buffer | null = null;
  if (method !== "GET" && method !== "HEAD") {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    body = Buffer.concat(chunks);
  } else request.resume();
  const answer = await (handler as Handler)(toFetchRequest(request, body), {
    params: Promise.resolve(route?.params ?? {}),
  });
  response.statusCode = answer.status;
  answer.headers.forEach((value, name) => {
    if (name !== "set-cookie" && !response.hasHeader(name)) response.setHeader(name, value);
  });
  const cookies = answer.headers.getSetCookie();
  if (cookies.length > 0) response.setHeader("set-cookie", cookies);
  response.end(Buffer.from(await answer.arrayBuffer()));
}

/** Starts the server for `routes` (path → the route module's exports). */
export async function startRouteServer(routes: Record<string, RouteModule>): Promise<RouteServer> {
  const server = createServer((request, response) =>
    observeRequest(request, response, TRUSTED_PROXY_HOPS, () => {
      dispatch(request, response, routes).catch((error: unknown) => {
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
