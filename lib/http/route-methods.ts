/**
 * The methods each route handler of app/ serves, so that the edge can answer
 * a method a route does not serve with a 405 that names those it does
 * (`Allow`, RFC 9110 §15.5.6). Next answers such a request with a bare 405.
 *
 * Each key is a route's path as Next matches it (route groups dropped,
 * `[name]` one segment, `[...name]` the rest), each value the methods its
 * route.ts exports. test/edge.test.ts reads every route.ts and fails when
 * this table and the files disagree.
 */

export const ROUTE_METHODS: Readonly<Record<string, readonly RouteMethod[]>> = Object.fromEntries([
  ["/.well-known/oauth-authorization-server", ["GET"]],
  ["/account/access/end", ["POST"]],
  ["/account/banks/remove", ["POST"]],
  ["/account/connections/[id]/renew", ["GET"]],
  ["/account/delete", ["POST"]],
  ["/account/key/backup-saved", ["POST"]],
  ["/account/key/start-over", ["POST"]],
  ["/account/keys", ["POST"]],
  ["/account/keys/revoke", ["POST"]],
  ["/account/passkeys", ["GET"]],
  ["/account/passkeys/[id]", ["DELETE"]],
  ["/account/passkeys/[id]/key", ["PUT"]],
  ["/api", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/[...path]", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/accounts", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/accounts/[id]/sync", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/accounts/[id]/transactions", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/aspsps", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/authorizations", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/connect/clients/[clientId]/branding", ["GET"]],
  ["/api/connections", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/analytics", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/audit-events", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/branding", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/clients", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/clients/[clientId]", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/clients/[clientId]/rotate-secret", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/logo", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/me", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/recipient-key", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/recipient-key/challenge", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/webhooks", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/webhooks/[endpointId]", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/webhooks/[endpointId]/deliveries", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  [
    "/api/partner/webhooks/[endpointId]/deliveries/[deliveryId]/replay",
    ["GET", "POST", "PUT", "PATCH", "DELETE"],
  ],
  ["/api/partner/webhooks/[endpointId]/rotate-secret", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partner/webhooks/[endpointId]/test", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partners", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partners/mine/recipient-key", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/partners/mine/recipient-key/challenge", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/api/sync", ["GET", "POST", "PUT", "PATCH", "DELETE"]],
  ["/auth/cli/confirm", ["POST"]],
  ["/auth/cli/key", ["POST"]],
  ["/auth/cli/token", ["POST"]],
  ["/banks/callback", ["GET"]],
  ["/banks/continue", ["POST"]],
  ["/banks/finish", ["GET"]],
  ["/banks/progress/status", ["GET"]],
  ["/banks/renew", ["GET"]],
  ["/banks/start", ["POST"]],
  ["/consent/approve", ["POST"]],
  ["/demo/callback", ["GET", "POST"]],
  ["/demo/forget", ["GET"]],
  ["/demo/revoke", ["GET", "POST"]],
  ["/demo/start", ["GET", "POST"]],
  ["/demo/sync", ["GET", "POST"]],
  ["/healthz", ["GET"]],
  ["/livez", ["GET"]],
  ["/login/code", ["POST"]],
  ["/login/continue", ["GET"]],
  ["/login/link/confirm", ["POST"]],
  ["/login/request", ["POST"]],
  ["/logos/[file]", ["GET"]],
  ["/logout", ["GET", "POST"]],
  ["/oauth/authorize", ["GET"]],
  ["/oauth/cancel", ["POST"]],
  ["/oauth/revoke", ["POST"]],
  ["/oauth/token", ["POST"]],
  ["/oauth/userinfo", ["GET"]],
  ["/openapi.json", ["GET"]],
  ["/passkeys/register", ["POST"]],
  ["/passkeys/register/options", ["POST"]],
  ["/passkeys/sign-in", ["POST"]],
  ["/passkeys/sign-in/options", ["POST"]],
  ["/readyz", ["GET"]],
  ["/sandbox/authorize/decision", ["POST"]],
  ["/setup/key", ["POST"]],
  ["/setup/start-over", ["POST"]],
] satisfies [string, RouteMethod[]][]);

export type RouteMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS";

type Segment = { kind: 0; name: string } | { kind: 1 } | { kind: 2 };

/** A segment's rank as Next orders routes: static before `[name]` before `[...name]`. */
function segmentOf(segment: string): Segment {
  if (/^\[\.\.\.[^\]]+\]$/.test(segment)) return { kind: 2 };
  if (/^\[[^\]]+\]$/.test(segment)) return { kind: 1 };
  return { kind: 0, name: segment };
}

const PATTERNS = Object.entries(ROUTE_METHODS).map(([path, methods]) => ({
  segments: path.split("/").slice(1).map(segmentOf),
  methods,
}));

function matches(pattern: Segment[], segments: string[]): boolean {
  for (let index = 0; index < pattern.length; index += 1) {
    const expected = pattern[index]!;
    const actual = segments[index];
    if (actual === undefined || actual === "") return false;
    if (expected.kind === 2) return segments.slice(index).every((rest) => rest !== "");
    if (expected.kind === 0 && expected.name !== actual) return false;
  }
  return segments.length === pattern.length;
}

/** Whether `a` is the more specific of two matching patterns (the one Next routes to). */
function moreSpecific(a: Segment[], b: Segment[]): boolean {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    if (a[index]!.kind !== b[index]!.kind) return a[index]!.kind < b[index]!.kind;
  }
  return a.length > b.length;
}

/**
 * The methods the route handler at `pathname` answers, as Next serves them
 * (HEAD wherever GET is, OPTIONS everywhere), sorted; null when no route
 * handler serves the path (a page, a file, a 404).
 */
export function allowedMethods(pathname: string): string[] | null {
  const segments = pathname.split("/").slice(1);
  let best: (typeof PATTERNS)[number] | null = null;
  for (const pattern of PATTERNS) {
    if (!matches(pattern.segments, segments)) continue;
    if (!best || moreSpecific(pattern.segments, best.segments)) best = pattern;
  }
  if (!best) return null;
  const allowed = new Set<string>(best.methods);
  if (allowed.has("GET")) allowed.add("HEAD");
  allowed.add("OPTIONS");
  return [...allowed].sort();
}
