/**
 * Rate-limit policies (SPEC 8.1), per source IP and per minute. Policies are
 * data (STYLE.md rule 8). /oauth/token, /oauth/revoke and /oauth/userinfo are
 * deliberately not limited. These are traffic limits, which fail open; the
 * limits that guard sign-in secrets are in lib/auth/sign-in-limits.ts.
 */
export interface RateLimitPolicy {
  limit: number;
  windowSeconds: number;
}

export const RATE_LIMIT_POLICIES = {
  authorize: { limit: 50, windowSeconds: 60 },
  cancel: { limit: 50, windowSeconds: 60 },
  api: { limit: 300, windowSeconds: 60 },
} as const satisfies Record<string, RateLimitPolicy>;

export type RateLimitPolicyName = keyof typeof RATE_LIMIT_POLICIES;

export function policyForPath(pathname: string): RateLimitPolicyName | null {
  if (pathname === "/oauth/authorize") return "authorize";
  if (pathname === "/oauth/cancel") return "cancel";
  if (pathname === "/api" || pathname.startsWith("/api/")) return "api";
  return null;
}
