import { NextResponse, type NextRequest } from "next/server";
import { getEnv } from "./lib/env";
import { baselineHeaders, createNonce, pageCsp } from "./lib/http/security-headers";

/**
 * Runs before every request. Pages get a per-request CSP nonce (forwarded to
 * Next on the request so its own scripts carry it); every response gets the
 * baseline headers. Route handlers set their own Content-Security-Policy
 * (JSON: nothing may load; the relay page: its script hash), so it is left
 * alone for them.
 */
const ROUTE_HANDLER_PREFIXES = ["/api/", "/oauth/", "/.well-known/", "/healthz", "/logos/"];

function isRouteHandler(pathname: string): boolean {
  return ROUTE_HANDLER_PREFIXES.some((prefix) => pathname === prefix.replace(/\/$/, "") || pathname.startsWith(prefix));
}

export function proxy(request: NextRequest) {
  const https = request.nextUrl.protocol === "https:";
  const baseline = baselineHeaders({ https });

  if (isRouteHandler(request.nextUrl.pathname)) {
    const response = NextResponse.next();
    for (const [name, value] of Object.entries(baseline)) response.headers.set(name, value);
    return response;
  }

  const nonce = createNonce();
  const csp = pageCsp(nonce, { development: getEnv().nodeEnv === "development" });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("Content-Security-Policy", csp);

  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", csp);
  for (const [name, value] of Object.entries(baseline)) response.headers.set(name, value);
  return response;
}

export const config = {
  matcher: [
    // Everything except static build assets, which carry no document.
    { source: "/((?!_next/static|_next/image|favicon.ico).*)" },
  ],
};
