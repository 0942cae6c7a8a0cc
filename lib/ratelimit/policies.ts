/**
 * Rate-limit policies (SPEC 8.1), per source IP and per minute. Policies are
 * data (STYLE.md rule 8). /oauth/token, /oauth/revoke and /oauth/userinfo are
 * deliberately not limited.
 */
export interface RateLimitPolicy {
  limit: number;
  windowSeconds: number;
}

export const RATE_LIMIT_POLICIES = {
  authorize: { limit: 50, windowSeconds: 60 },
  cancel: { limit: 50, windowSeconds: 60 },
  api: { limit: 300, windowSeconds: 60 },
  // DESIGN.md §8: per-email mail sending limits for sign-in (keyed by a hash
  // of the address, not the client IP): one mail a minute, five per 15 min.
  "login-email-minute": { limit: 1, windowSeconds: 60 },
  "login-email": { limit: 5, windowSeconds: 15 * 60 },
  // Sign-in mails per client IP, whatever the address: as many a minute as
  // authorize allows flows, so a shared office address is not locked out.
  "login-ip": { limit: 30, windowSeconds: 60 },
} as const satisfies Record<string, RateLimitPolicy>;

export type RateLimitPolicyName = keyof typeof RATE_LIMIT_POLICIES;

export function policyForPath(pathname: string): RateLimitPolicyName | null {
  if (pathname === "/oauth/authorize") return "authorize";
  if (pathname === "/oauth/cancel") return "cancel";
  if (pathname === "/api" || pathname.startsWith("/api/")) return "api";
  return null;
}
