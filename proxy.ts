import { NextResponse, type NextRequest } from "next/server";
import { getEnv } from "./lib/env";
import { clientIpOf } from "./lib/http/client-ip";
import { refuseBeforeRouting } from "./lib/http/request-guards";
import {
  baselineHeaders,
  createNonce,
  formActionAllowedAnywhere,
  isRouteHandler,
  pageCsp,
  PATH_HEADER,
} from "./lib/http/security-headers";
import { countRequest } from "./lib/ratelimit/limiter";
import { policyForPath } from "./lib/ratelimit/policies";

/**
 * Runs before every request, in this order:
 * 1. Rate limits (SPEC 8.1): per client address, 429 with no body.
 * 2. Requests Next would answer with a 500 (unknown methods, malformed
 *    percent-encoding in an id path): a 4xx instead (lib/http/request-guards).
 * 3. Security headers: pages get a per-request CSP nonce (forwarded to Next on
 *    the request so its own scripts carry it); every response gets the
 *    baseline. Route handlers set their own Content-Security-Policy (JSON:
 *    nothing may load; the relay page: its script hash) and Referrer-Policy
 *    (the relay page: no-referrer), so those are left alone: Next would keep
 *    the proxy's value over the handler's.
 */
async function rateLimited(request: NextRequest): Promise<NextResponse | null> {
  const policy = policyForPath(request.nextUrl.pathname);
  if (!policy) return null;
  const result = await countRequest(policy, clientIpOf(request));
  if (result.allowed) return null;
  // SPEC 7.3: the service's own 429 has no reason body.
  return new NextResponse(null, {
    status: 429,
    headers: { "Retry-After": String(result.retryAfterSeconds), "Cache-Control": "no-store" },
  });
}

export async function proxy(request: NextRequest) {
  const limited = await rateLimited(request);
  const refused = limited
    ? null
    : refuseBeforeRouting(request.method, new URL(request.url).pathname);
  const response = limited ?? refused ?? securedPassThrough(request);
  const baseline = baselineHeaders({
    https: getEnv().issuer.startsWith("https://"),
    // A route handler will answer: the headers it owns are its own choice.
    routeHandler:
      response === limited || response === refused
        ? false
        : isRouteHandler(request.nextUrl.pathname),
  });
  for (const [name, value] of Object.entries(baseline)) response.headers.set(name, value);
  return response;
}

function securedPassThrough(request: NextRequest): NextResponse {
  if (isRouteHandler(request.nextUrl.pathname)) return NextResponse.next();
  const { pathname } = request.nextUrl;
  const nonce = createNonce();
  const csp = pageCsp(nonce, {
    development: getEnv().nodeEnv === "development",
    formActionAnywhere: formActionAllowedAnywhere(pathname),
  });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set(PATH_HEADER, pathname);
  requestHeaders.set("Content-Security-Policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);
  return response;
}

export const config = {
  matcher: [
    // Everything except static build assets, which carry no document.
    { source: "/((?!_next/static|_next/image|favicon.ico).*)" },
  ],
};
