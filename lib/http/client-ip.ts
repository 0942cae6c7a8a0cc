import { isIP } from "node:net";

/**
 * The client address, from trusted sources only (docs/security.md). The service's
 * own HTTP server stamps CLIENT_IP_HEADER on every request, overwriting
 * whatever the client sent, from the socket address — or, behind N trusted
 * reverse proxies, from the Nth X-Forwarded-For entry counted from the right
 * (entries further left are client-supplied and may be forged).
 */
export const CLIENT_IP_HEADER = "x-bank-connect-client-ip";

export function resolveClientIp(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustedHops: number,
): string {
  const socket = normalizeIp(socketAddress) ?? "unknown";
  if (trustedHops <= 0) return socket;
  const chain = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? ""))
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  // The last proxy appended the address it saw; hop N saw the client.
  const candidate = chain[chain.length - trustedHops];
  return normalizeIp(candidate) ?? socket;
}

/** Strips IPv4-mapped IPv6 prefixes; null for anything that is not an address. */
export function normalizeIp(value: string | undefined): string | null {
  if (!value) return null;
  const trimmed = value.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  return isIP(trimmed) ? trimmed.toLowerCase() : null;
}

/** The stamped client address of a request handled by the service's server. */
export function clientIpOf(request: Request): string {
  return request.headers.get(CLIENT_IP_HEADER) ?? "unknown";
}
