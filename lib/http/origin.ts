import { getEnv } from "../env";

/**
 * The request's Origin is this service's. Browsers send Origin on every
 * POST, so a form or script post from another site (RFC 6454 origin) is
 * refused before its content counts.
 */
export function isSameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  return origin !== null && origin === new URL(getEnv().issuer).origin;
}
