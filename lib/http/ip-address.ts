import { BlockList, isIP } from "node:net";

/**
 * Which addresses count as public internet addresses (the IANA IPv4 and IPv6
 * special-purpose address registries), for the outbound fetches that must
 * never reach this host or its network (logo fetches).
 *
 * IPv6 is judged by what a connection to it would reach:
 * - only global unicast (2000::/3, RFC 4291 §2.4) can be public; that leaves
 *   out loopback, unspecified, unique-local, link-local, multicast, discard
 *   and the deprecated IPv4-compatible ::/96 (RFC 4291 §2.5.5.1, never
 *   routed), the NAT64 local-use prefix 64:ff9b:1::/48 (RFC 8215: where it
 *   leads is the local network's choice) and SRv6 5f00::/16;
 * - inside it, the IETF protocol block 2001::/23 (Teredo 2001::/32, RFC 4380,
 *   whose packets go to the IPv4 client hidden in the last 32 bits),
 *   documentation 2001:db8::/32 and 3fff::/20, and 6to4 2002::/16 (RFC 3056,
 *   deprecated by RFC 7526; it carries an IPv4 address in bits 16–47) are
 *   refused whole: no logo host needs them, and judging their embedded
 *   addresses would only add ways to get it wrong;
 * - the two forms in real use that carry an IPv4 destination, IPv4-mapped
 *   ::ffff:0:0/96 (RFC 4291 §2.5.5.2: a dual-stack socket connects to the
 *   IPv4 address) and the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052: a
 *   DNS64 resolver hands these out for IPv4-only hosts, and the translator
 *   connects to the IPv4 address), are judged as that IPv4 address.
 */
const NOT_PUBLIC_IPV4 = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  NOT_PUBLIC_IPV4.addSubnet(network, prefix, "ipv4");
}

const GLOBAL_UNICAST = new BlockList();
GLOBAL_UNICAST.addSubnet("2000::", 3, "ipv6");

const NOT_PUBLIC_IPV6 = new BlockList();
for (const [network, prefix] of [
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["3fff::", 20],
] as const) {
  NOT_PUBLIC_IPV6.addSubnet(network, prefix, "ipv6");
}

/** The first 96 bits of the IPv6 forms that carry an IPv4 destination in their last 32. */
const IPV4_CARRYING_PREFIXES: readonly (readonly number[])[] = [
  [0, 0, 0, 0, 0, 0xffff],
  [0x64, 0xff9b, 0, 0, 0, 0],
];

/** True for a literal IPv4 or IPv6 address routable on the public internet. */
export function isPublicIpAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return !NOT_PUBLIC_IPV4.check(address, "ipv4");
  if (version !== 6) return false;
  const groups = ipv6Groups(address);
  if (!groups) return false;
  const carrier = IPV4_CARRYING_PREFIXES.find((prefix) =>
    prefix.every((group, index) => groups[index] === group),
  );
  if (carrier) return isPublicIpAddress(ipv4Of(groups[6] ?? 0, groups[7] ?? 0));
  return GLOBAL_UNICAST.check(address, "ipv6") && !NOT_PUBLIC_IPV6.check(address, "ipv6");
}

function ipv4Of(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

/**
 * The eight 16-bit groups of an IPv6 literal (`::` expanded, a trailing
 * dotted IPv4 part taken as two groups), or null for anything else, zone
 * identifiers included (only link-local addresses have them).
 */
export function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6 || address.includes("%")) return null;
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const missing = 8 - front.length - back.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const groups = [...front, ...new Array<number>(missing).fill(0), ...back];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff)
    ? groups
    : null;
}
