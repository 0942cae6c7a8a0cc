import type { IncomingMessage, ServerResponse } from "node:http";
import { matchDirectRoute } from "../../lib/api/direct-routes";
import { pathnameOf } from "../../lib/http/body-limits";
import { CLIENT_IP_HEADER } from "../../lib/http/client-ip";
import {
  edge,
  EDGE_REQUEST_HEADERS,
  type EdgeAnswer,
  type EdgeSettings,
} from "../../lib/http/edge";
import { answerDirectly } from "./direct-lane";

/** Writes an answer the edge gave (docs/edge.md). */
export function writeAnswer(
  request: IncomingMessage,
  response: ServerResponse,
  answer: EdgeAnswer,
) {
  const body = answer.body === null ? null : Buffer.from(answer.body);
  response.writeHead(answer.status, { ...answer.headers, "Content-Length": body?.length ?? 0 });
  // A body the answer did not need is drained, so the connection stays usable.
  request.resume();
  response.end(request.method === "HEAD" ? undefined : body);
}

/**
 * Everything the service's HTTP server does with a request before Next: the
 * edge (lib/http/edge.ts) answers or sets its headers, then the partner API's
 * direct routes are answered from their handlers (lib/api/direct-routes.ts).
 * Resolves false when the request is Next's to route; the edge's request and
 * response headers are then in place.
 */
export async function answerBeforeNext(
  request: IncomingMessage,
  response: ServerResponse,
  settings: EdgeSettings,
  origin: string,
  directRoute: typeof matchDirectRoute = matchDirectRoute,
): Promise<boolean> {
  const method = request.method ?? "GET";
  const pathname = pathnameOf(request.url ?? "/");
  const outcome = await edge(
    {
      method,
      pathname,
      clientIp: String(request.headers[CLIENT_IP_HEADER]),
      authorization: request.headers.authorization,
    },
    settings,
  );
  if ("answer" in outcome) {
    writeAnswer(request, response, outcome.answer);
    return true;
  }
  for (const name of EDGE_REQUEST_HEADERS) delete request.headers[name];
  Object.assign(request.headers, outcome.pass.requestHeaders);
  for (const [name, value] of Object.entries(outcome.pass.responseHeaders)) {
    response.setHeader(name, value);
  }
  const direct = directRoute(method, pathname);
  // Only a target that is its path as written (no dot segments to resolve, not `//host`).
  if (!direct || !request.url?.startsWith(pathname)) return false;
  await answerDirectly(request, response, direct, origin);
  return true;
}
