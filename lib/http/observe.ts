import type { IncomingMessage, ServerResponse } from "node:http";
import { countHttpRequest } from "../metrics";
import { routeTemplate } from "../metrics/routes";
import { REQUEST_ID_HEADER, requestIdFor, runInRequest } from "../request-context";
import { startServerSpan } from "../tracing";
import { pathnameOf } from "./body-limits";
import { SERVED_METHODS } from "./request-guards";

/**
 * What the service's HTTP server does around every request
 * (docs/observability.md): gives it an id (a trusted proxy's well-formed
 * `X-Request-Id`, or a new one), echoes the id in the response, runs the
 * request's handling with the id in context (every log line carries it) and
 * inside its server span, and counts the answer by route template, method and
 * status once the response is done.
 */
export function observeRequest(
  request: IncomingMessage,
  response: ServerResponse,
  trustedProxyHops: number,
  handle: () => void,
): void {
  const started = process.hrtime.bigint();
  const requestId = requestIdFor(request.headers[REQUEST_ID_HEADER], trustedProxyHops);
  // Next's handlers see the same id the logs and the response carry.
  request.headers[REQUEST_ID_HEADER] = requestId;
  response.setHeader("X-Request-Id", requestId);
  const method = SERVED_METHODS.has(request.method ?? "") ? (request.method ?? "") : "other";
  const route = routeTemplate(pathnameOf(request.url ?? "/"));
  const span = startServerSpan({
    method,
    route,
    requestId,
    headers: request.headers,
    trustProxy: trustedProxyHops > 0,
  });
  response.once("close", () => {
    // A response cut off before its head was sent is counted as 499, as proxies do.
    const status = response.headersSent ? response.statusCode : 499;
    span.end(status);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    countHttpRequest({ route, method, status }, seconds);
  });
  runInRequest({ requestId }, () => span.run(handle));
}
