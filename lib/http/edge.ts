import { countRateLimited } from "../metrics";
import { countRequest } from "../ratelimit/limiter";
import { policyFor } from "../ratelimit/policies";
import { REQUEST_ID_HEADER } from "../request-context";
import { CLIENT_IP_HEADER, clientIpOf } from "./client-ip";
import { metricsAnswer } from "./metrics-endpoint";
import { refuseBeforeRouting, SERVED_METHODS } from "./request-guards";
import { allowedMethods } from "./route-methods";
import {
  baselineHeaders,
  createNonce,
  formActionAllowedAnywhere,
  formActionToLoopback,
  isRouteHandler,
  pageCsp,
  PATH_HEADER,
} from "./security-headers";

/**
 * The edge: what runs for every request before Next routes it, called by the
 * service's HTTP server (scripts/lib/service-server.ts) and free of any
 * framework, so every way of running the service runs the same code
 * (docs/edge.md). In this order:
 * 1. Rate limits: per client address, 429 with no body and Retry-After.
 * 2. Requests Next would answer with a 500 (unknown methods, malformed
 *    percent-encoding in an id path): a 4xx instead (request-guards.ts); a
 *    method a route handler does not serve: 405 with `Allow`
 *    (route-methods.ts), where Next's has none.
 * 3. Documents that are constants (discovery): answered here, from bytes
 *    built once per process; and `GET /metrics` for the scraper holding its
 *    token (metrics-endpoint.ts).
 * 4. Security headers: every response gets the baseline; pages get a strict
 *    CSP with a fresh nonce, which is also put on the request, where Next
 *    reads it to nonce its own scripts. Route handlers keep their own
 *    Content-Security-Policy and Referrer-Policy (the relay page's
 *    no-referrer): a header set here would win over the handler's.
 */

export interface EdgeRequest {
  method: string;
  /** The path as routing sees it: dot segments resolved, percent-encoding kept. */
  pathname: string;
  /** The client address the HTTP server stamped (client-ip.ts). */
  clientIp: string;
  /** The Authorization header, read only by the metrics endpoint. */
  authorization?: string;
}

export interface EdgeSettings {
  /** The service is reached over https: HSTS. */
  https: boolean;
  /** `npm run dev`: the page CSP allows what the bundler needs. */
  development: boolean;
  /**
   * Documents that are constants of the process (discovery), answered from
   * their bytes without entering Next: the answer for a path, or null.
   */
  constants?: (pathname: string) => (Omit<EdgeAnswer, "body"> & { body: string }) | null;
}

/** A complete answer given at the edge: Next never sees the request. */
export interface EdgeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

/** The request goes on to Next, with these headers set on the request and on its response. */
export interface EdgePass {
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
}

export type EdgeOutcome = { answer: EdgeAnswer } | { pass: EdgePass };

/**
 * Request headers only the edge sets; whatever a client sent under these
 * names is dropped. Next takes a page's script nonce from the request's CSP.
 */
export const EDGE_REQUEST_HEADERS: readonly string[] = [
  "x-nonce",
  PATH_HEADER,
  "content-security-policy",
  "content-security-policy-report-only",
];

/**
 * Every request header the service itself sets (docs/edge.md): the client
 * address and the request id the server stamps, and the edge's own. A
 * handler, on either lane, sees only the service's values under these names,
 * never what a client sent.
 */
export const INTERNAL_REQUEST_HEADERS: readonly string[] = [
  CLIENT_IP_HEADER,
  REQUEST_ID_HEADER,
  ...EDGE_REQUEST_HEADERS,
];

export async function edge(request: EdgeRequest, settings: EdgeSettings): Promise<EdgeOutcome> {
  const answered =
    (await edgeRefusal(request)) ??
    unservedMethod(request) ??
    (await rateLimited(request)) ??
    constant(request, settings) ??
    (await metricsAnswer(request));
  if (answered) {
    Object.assign(answered.headers, baselineHeaders({ https: settings.https }));
    return { answer: answered };
  }
  return { pass: passOn(request.pathname, settings) };
}

/** The edge for a fetch Request: what a fetch-style adapter (and the tests) call. */
export function edgeForRequest(request: Request, settings: EdgeSettings): Promise<EdgeOutcome> {
  return edge(
    {
      method: request.method,
      pathname: new URL(request.url).pathname,
      clientIp: clientIpOf(request),
      authorization: request.headers.get("authorization") ?? undefined,
    },
    settings,
  );
}

async function rateLimited(request: EdgeRequest): Promise<EdgeAnswer | null> {
  const policy = policyFor(request.method, request.pathname);
  if (!policy) return null;
  const result = await countRequest(policy, request.clientIp);
  if (result.allowed) return null;
  countRateLimited(policy);
  // The service's own 429 carries no reason body.
  return {
    status: 429,
    headers: { "Retry-After": String(result.retryAfterSeconds), "Cache-Control": "no-store" },
    body: null,
  };
}

/**
 * A method Next does not serve: 405, with the baseline headers. Synchronous,
 * so the server can answer before it looks at the body.
 */
export function methodRefusal(method: string, settings: EdgeSettings): EdgeAnswer | null {
  if (SERVED_METHODS.has(method)) return null;
  return {
    status: 405,
    headers: { Allow: [...SERVED_METHODS].join(", "), ...baselineHeaders(settings) },
    body: null,
  };
}

/**
 * A request target that is not a path (RFC 9112 §3.2): the asterisk form
 * (`OPTIONS *`) and the absolute form (`GET http://host/path`) that clients
 * send only to proxies, and anything else that does not start with `/`.
 * Next fails on the first (a 500) and answers the second with a cacheable
 * redirect to the foreign host; the service is no proxy and serves no
 * server-wide OPTIONS, so both get a 400 that nothing caches. Synchronous,
 * like methodRefusal.
 */
export function targetRefusal(target: string, settings: EdgeSettings): EdgeAnswer | null {
  if (target.startsWith("/")) return null;
  return {
    status: 400,
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "no-store",
      ...baselineHeaders(settings),
    },
    body: "Bad request: the request target must be a path starting with /.\n",
  };
}

/**
 * A method the route handler at the path does not serve: 405 naming those it
 * does (`Allow`, RFC 9110 §15.5.6), where Next would send a bare 405.
 */
export function unservedMethod(
  request: Pick<EdgeRequest, "method" | "pathname">,
): EdgeAnswer | null {
  const allowed = allowedMethods(request.pathname);
  if (!allowed || allowed.includes(request.method)) return null;
  return { status: 405, headers: { Allow: allowed.join(", ") }, body: null };
}

/** The request guards' refusal, if any (without the baseline headers, which edge() adds). */
export async function edgeRefusal(
  request: Pick<EdgeRequest, "method" | "pathname">,
): Promise<EdgeAnswer | null> {
  const refusal = refuseBeforeRouting(request.method, request.pathname);
  if (!refusal) return null;
  const headers: Record<string, string> = {};
  refusal.headers.forEach((value, name) => (headers[name] = value));
  const body = await refusal.text();
  return { status: refusal.status, headers, body: body === "" ? null : body };
}

function constant(request: EdgeRequest, settings: EdgeSettings): EdgeAnswer | null {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  return settings.constants?.(request.pathname) ?? null;
}

function passOn(pathname: string, settings: EdgeSettings): EdgePass {
  // Route handlers choose their own CSP and Referrer-Policy; build assets carry no document.
  if (isRouteHandler(pathname) || pathname.startsWith("/_next/")) {
    return {
      requestHeaders: {},
      responseHeaders: baselineHeaders({ https: settings.https, routeHandler: true }),
    };
  }
  const nonce = createNonce();
  const csp = pageCsp(nonce, {
    development: settings.development,
    formActionAnywhere: formActionAllowedAnywhere(pathname),
    formActionLoopback: formActionToLoopback(pathname),
  });
  return {
    requestHeaders: { "x-nonce": nonce, [PATH_HEADER]: pathname, "content-security-policy": csp },
    responseHeaders: {
      ...baselineHeaders({ https: settings.https }),
      "Content-Security-Policy": csp,
    },
  };
}

/** An edge answer as a fetch Response (for fetch-style adapters and tests). */
export function answerResponse(answer: EdgeAnswer): Response {
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
