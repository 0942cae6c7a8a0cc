/**
 * Traffic limits, per client address and per minute; policies are data.
 * /oauth/token, /oauth/revoke and /oauth/userinfo are deliberately not
 * limited. These fail open with their store (lib/ratelimit/limiter.ts); the
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
  /**
   * The "My access" actions (POST and DELETE under /account/): a person ends access or removes a
   * bank a few times, not hundreds. The page's reads are not counted: a reload is not an action.
   */
  account: { limit: 30, windowSeconds: 60 },
} as const satisfies Record<string, RateLimitPolicy>;

export type RateLimitPolicyName = keyof typeof RATE_LIMIT_POLICIES;

/** Methods that read: My access's reads (its passkey list, its pages) are not its actions. */
const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The policy a request counts against, or null for an unlimited one. */
export function policyFor(method: string, pathname: string): RateLimitPolicyName | null {
  if (pathname === "/oauth/authorize") return "authorize";
  if (pathname === "/oauth/cancel") return "cancel";
  if (pathname === "/api" || pathname.startsWith("/api/")) return "api";
  if (pathname.startsWith("/account/") && !READS.has(method)) return "account";
  return null;
}
