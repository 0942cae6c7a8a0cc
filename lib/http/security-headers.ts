/**
 * Baseline security headers, applied by the edge (edge.ts). Pages
 * get a strict CSP with a per-request nonce; JSON responses carry API_CSP,
 * which allows nothing at all; the relay page sets its own (its script hash).
 */

export function createNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

const ROUTE_HANDLER_PREFIXES = [
  "/api/",
  // The passkey endpoints, /account's included: JSON answers.
  "/passkeys/",
  "/account/passkeys/",
  // A consent's renewal from My access: a redirect to the bank or to sign-in.
  "/account/connections/",
  "/oauth/",
  "/.well-known/",
  "/healthz",
  "/livez",
  "/readyz",
  "/logos/",
  "/openapi.json",
];
/** The hosted flow's form endpoints: they answer with redirects or the relay page. */
const FLOW_ROUTE_HANDLERS = new Set([
  "/login/request",
  "/login/code",
  "/login/link/confirm",
  "/login/continue",
  "/logout",
  "/setup/key",
  "/setup/start-over",
  "/banks/start",
  "/banks/callback",
  "/banks/continue",
  "/banks/renew",
  "/banks/finish",
  "/banks/progress/status",
  "/consent/approve",
  "/sandbox/authorize/decision",
]);
/** The "My access" actions (/account is their page): JSON answers. */
const ACCOUNT_ROUTE_HANDLERS = new Set([
  "/account/access/end",
  "/account/banks/remove",
  "/account/key/start-over",
  "/account/key/backup-saved",
  "/account/delete",
  "/account/keys",
  "/account/keys/revoke",
]);
/**
 * The command-line sign-in's endpoints (/auth/cli/start is their page): the
 * confirmation's redirect, the code's exchange and key setup's JSON.
 */
const CLI_ROUTE_HANDLERS = new Set(["/auth/cli/confirm", "/auth/cli/token", "/auth/cli/key"]);
/** The demo partner's form endpoints (/demo is its page): redirects only. */
const DEMO_ROUTE_HANDLERS = new Set([
  "/demo/start",
  "/demo/callback",
  "/demo/sync",
  "/demo/revoke",
  "/demo/forget",
]);

/**
 * Paths served by route handlers, which set their own Content-Security-Policy
 * (JSON: nothing may load; the relay page: its script hash and a form-action
 * open to the partner). The edge leaves their CSP alone.
 */
export function isRouteHandler(pathname: string): boolean {
  return (
    FLOW_ROUTE_HANDLERS.has(pathname) ||
    ACCOUNT_ROUTE_HANDLERS.has(pathname) ||
    CLI_ROUTE_HANDLERS.has(pathname) ||
    DEMO_ROUTE_HANDLERS.has(pathname) ||
    ROUTE_HANDLER_PREFIXES.some(
      (prefix) => pathname === prefix.replace(/\/$/, "") || pathname.startsWith(prefix),
    )
  );
}

/** Request header carrying a page's path to server components (the edge sets it). */
export const PATH_HEADER = "x-bank-connect-path";

/**
 * The consent page relays to the partner from the browser (user-key mode:
 * the private key never reaches the server), so its forms may post to the
 * partner's redirect URI; every other page posts only to this origin.
 */
export function formActionAllowedAnywhere(pathname: string): boolean {
  return pathname === "/consent";
}

/**
 * The command-line sign-in's question (docs/own-data.md): its form's answer
 * sends the browser on to the program's listener on the loopback address
 * (RFC 8252), a redirect the form-action directive governs too. Only
 * `http://127.0.0.1` is added, never another host.
 */
export function formActionToLoopback(pathname: string): boolean {
  return pathname === "/auth/cli/start";
}

export function pageCsp(
  nonce: string,
  options: { development: boolean; formActionAnywhere?: boolean; formActionLoopback?: boolean },
): string {
  const directives = [
    "default-src 'self'",
    // 'strict-dynamic' lets the nonced framework scripts load their chunks.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.development ? " 'unsafe-eval'" : ""}`,
    // In development the bundler injects styles at run time; production uses files and nonced tags.
    options.development ? "style-src 'self' 'unsafe-inline'" : `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    ...(options.formActionAnywhere
      ? []
      : [`form-action 'self'${options.formActionLoopback ? " http://127.0.0.1:*" : ""}`]),
    "frame-ancestors 'none'",
  ];
  return directives.join("; ");
}

/** For responses that are not pages: nothing may load, nothing may frame them. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Headers a route handler chooses for itself. Next sends a header the edge
 * set and drops the handler's own value for it, so the edge gives these only
 * to pages and to its own answers. The relay page sends no-referrer; every
 * other route handler answers JSON, an image or a redirect, and a redirect
 * without the header keeps the referrer policy of the page that made the
 * request (Fetch standard, "HTTP-redirect fetch"): our pages' same-origin.
 */
export const ROUTE_HANDLER_OWNED_HEADERS: readonly string[] = ["Referrer-Policy"];

export function baselineHeaders(options: {
  https: boolean;
  /** The response comes from a route handler, which keeps its own ROUTE_HANDLER_OWNED_HEADERS. */
  routeHandler?: boolean;
}): Record<string, string> {
  const headers: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    // Nothing leaves for another origin, but our own form POSTs keep their
    // Origin header (with no-referrer, browsers send `Origin: null`), which
    // the CSRF check needs. The relay page sets no-referrer itself.
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
  };
  if (options.https) {
    headers["Strict-Transport-Security"] = "max-age=63072000; includeSubDomains";
  }
  if (options.routeHandler) {
    for (const name of ROUTE_HANDLER_OWNED_HEADERS) delete headers[name];
  }
  return headers;
}
