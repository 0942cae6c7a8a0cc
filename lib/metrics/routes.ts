/**
 * The route template a path is counted under: the app's routes with their
 * dynamic segments named, so that ids never become label values. A path no
 * route serves is "other" (scanners would otherwise mint a series per probe).
 */

const DYNAMIC_ROUTES: readonly (readonly [RegExp, string])[] = [
  [/^\/api\/accounts\/[^/]+\/transactions$/, "/api/accounts/{id}/transactions"],
  [/^\/api\/accounts\/[^/]+\/sync$/, "/api/accounts/{id}/sync"],
  [/^\/api\/connect\/clients\/[^/]+\/branding$/, "/api/connect/clients/{clientId}/branding"],
  [
    /^\/api\/partner\/clients\/[^/]+\/rotate-secret$/,
    "/api/partner/clients/{clientId}/rotate-secret",
  ],
  [/^\/api\/partner\/clients\/[^/]+$/, "/api/partner/clients/{clientId}"],
  [/^\/logos\/[^/]+$/, "/logos/{file}"],
  [/^\/account\/passkeys\/[^/]+\/key$/, "/account/passkeys/{id}/key"],
  [/^\/account\/passkeys\/[^/]+$/, "/account/passkeys/{id}"],
  [/^\/_next\//, "/_next/{asset}"],
];

/** Every route without dynamic segments (route handlers and pages alike). */
export const STATIC_ROUTES: ReadonlySet<string> = new Set([
  "/",
  "/.well-known/oauth-authorization-server",
  "/openapi.json",
  "/healthz",
  "/metrics",
  "/icon.svg",
  "/logout",
  "/oauth/authorize",
  "/oauth/cancel",
  "/oauth/revoke",
  "/oauth/token",
  "/oauth/userinfo",
  "/api",
  "/api/accounts",
  "/api/connections",
  "/api/sync",
  "/api/partner/analytics",
  "/api/partner/audit-events",
  "/api/partner/branding",
  "/api/partner/clients",
  "/api/partner/logo",
  "/api/partner/me",
  "/api/partner/recipient-key",
  "/api/partner/recipient-key/challenge",
  "/api/partners",
  "/api/partners/mine/recipient-key",
  "/api/partners/mine/recipient-key/challenge",
  "/banks",
  "/banks/callback",
  "/banks/continue",
  "/banks/finish",
  "/banks/progress",
  "/banks/progress/status",
  "/banks/renew",
  "/banks/start",
  "/consent",
  "/consent/approve",
  "/error",
  "/login",
  "/login/code",
  "/login/continue",
  "/login/link",
  "/login/link/confirm",
  "/login/request",
  "/setup",
  "/setup/key",
  "/setup/start-over",
  "/sandbox/authorize",
  "/sandbox/authorize/decision",
  "/account",
  "/account/access/end",
  "/account/banks/remove",
  "/account/delete",
  "/account/deleted",
  "/account/key/start-over",
  "/account/passkeys",
  "/passkeys/register",
  "/passkeys/register/options",
  "/passkeys/sign-in",
  "/passkeys/sign-in/options",
  "/dashboard",
  "/dashboard/analytics",
  "/demo",
  "/demo/callback",
  "/demo/forget",
  "/demo/revoke",
  "/demo/start",
  "/demo/sync",
  "/docs",
  "/docs/data",
  "/docs/envelopes",
  "/docs/errors",
  "/docs/creating-partners",
  "/docs/flow",
  "/docs/key-rotation",
  "/docs/partners",
  "/docs/recipient-keys",
  "/docs/reference",
  "/docs/relay",
  "/docs/sync",
  "/docs/token",
]);

export function routeTemplate(pathname: string): string {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  if (STATIC_ROUTES.has(path)) return path;
  for (const [pattern, template] of DYNAMIC_ROUTES) if (pattern.test(path)) return template;
  // The partner API answers every other /api path itself (403).
  if (path.startsWith("/api/")) return "/api/{other}";
  return "other";
}
