import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction as NetLookupFunction } from "node:net";
import { isPublicIpAddress } from "./ip-address";

/**
 * The address guard of the service's outbound requests to addresses a
 * partner gives (logo fetches, webhook deliveries; docs/security.md): resolve
 * the name, refuse it if ANY of its addresses is not a public internet
 * address (./ip-address.ts), then connect to exactly the address that was
 * checked (pinned), so a DNS answer that changes between the check and the
 * connection (DNS rebinding) cannot reach a private address.
 */

/** One resolved address, as `dns.promises.lookup(host, { all: true })` returns it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

export type ResolveHost = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The system resolver, every address, in the order it answers them. */
export const systemLookup: ResolveHost = (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true });

/** The hostname of a URL as resolved and sent in Host and SNI (brackets removed from IPv6 literals). */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** The first address that may not be connected to, or undefined when all may. */
export function firstRefusedAddress(
  addresses: readonly string[],
  isAllowedAddress: (address: string) => boolean = isPublicIpAddress,
): string | undefined {
  return addresses.find((address) => !isAllowedAddress(address));
}

export type CheckedAddress =
  | { ok: true; address: string }
  | { ok: false; reason: "refused"; address: string }
  | { ok: false; reason: "unresolved"; cause?: unknown };

/**
 * Resolves `hostname` (an IP literal is taken as is) and answers the one
 * address to connect to, or why there is none: an address that is not
 * allowed (`refused`), or no address at all (`unresolved`).
 */
export async function checkHostAddress(
  hostname: string,
  options: { lookup?: ResolveHost; isAllowedAddress?: (address: string) => boolean } = {},
): Promise<CheckedAddress> {
  let addresses: string[];
  if (isIP(hostname)) {
    addresses = [hostname];
  } else {
    try {
      addresses = (await (options.lookup ?? systemLookup)(hostname)).map((entry) => entry.address);
    } catch (cause) {
      return { ok: false, reason: "unresolved", cause };
    }
  }
  const refused = firstRefusedAddress(addresses, options.isAllowedAddress);
  if (refused !== undefined) return { ok: false, reason: "refused", address: refused };
  const [address] = addresses;
  if (address === undefined) return { ok: false, reason: "unresolved" };
  return { ok: true, address };
}

/**
 * A resolver for the socket that answers every question with the vetted
 * address: the connection goes exactly where the check looked, even if the
 * name's DNS answer has changed since (DNS rebinding).
 */
export function pinnedLookup(address: string): NetLookupFunction {
  const family = isIP(address);
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
