/**
 * Where to go after signing in: only a path on this service's own origin,
 * never another site (an open redirect would hand sign-ins to attackers).
 */
export function toSafeReturnPath(
  returnUrl: string | null | undefined,
  issuer: string,
): string | null {
  if (!returnUrl) return null;
  let parsed: URL;
  try {
    parsed = new URL(returnUrl, issuer);
  } catch {
    return null;
  }
  if (parsed.origin !== new URL(issuer).origin) return null;
  if (!parsed.pathname.startsWith("/") || parsed.pathname.startsWith("//")) return null;
  return `${parsed.pathname}${parsed.search}`;
}
