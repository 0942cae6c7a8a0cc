import { BlockList, isIP } from "node:net";

/**
 * Addresses that are not on the public internet (IANA special-purpose
 * registries): loopback, private, shared, link-local, documentation,
 * benchmarking, multicast and reserved ranges, for IPv4 and IPv6.
 */
const NOT_PUBLIC = new BlockList();
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
  NOT_PUBLIC.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  NOT_PUBLIC.addSubnet(network, prefix, "ipv6");
}

/** True for a literal IPv4 or IPv6 address routable on the public internet. */
export function isPublicIpAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return !NOT_PUBLIC.check(address, "ipv4");
  if (version !== 6) return false;
  // An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return isPublicIpAddress(mapped[1]);
  return !NOT_PUBLIC.check(address, "ipv6");
}
