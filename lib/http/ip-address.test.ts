import { describe, expect, it } from "vitest";
import { ipv6Groups, isPublicIpAddress } from "./ip-address";

/** IPv6 forms in use that carry an IPv4 destination: judged by it. */
const CARRYING_PRIVATE = [
  ["IPv4-mapped, dotted", "::ffff:127.0.0.1"],
  ["IPv4-mapped, hex (as URLs serialize it)", "::ffff:7f00:1"],
  ["IPv4-mapped, expanded", "0:0:0:0:0:ffff:a9fe:a9fe"],
  ["NAT64 well-known prefix, loopback", "64:ff9b::127.0.0.1"],
  ["NAT64 well-known prefix, private", "64:ff9b::a00:1"],
  ["NAT64 well-known prefix, metadata", "64:ff9b::a9fe:a9fe"],
] as const;

/** Transition and deprecated forms refused whatever they carry. */
const REFUSED_WHOLE = [
  ["NAT64 local-use prefix", "64:ff9b:1::808:808"],
  ["6to4 carrying a public address", "2002:808:808::1"],
  ["6to4 carrying loopback", "2002:7f00:1::1"],
  ["Teredo carrying a public server and client", "2001:0:808:808:0:0:f7f7:f7f7"],
  ["Teredo whose client is 127.0.0.1 (inverted bits)", "2001:0:4136:e378:8000:63bf:80ff:fffe"],
  ["IPv4-compatible (deprecated) loopback", "::127.0.0.1"],
  ["IPv4-compatible (deprecated) public", "::8.8.8.8"],
  ["IPv4-compatible, hex", "::7f00:1"],
] as const;

describe("isPublicIpAddress", () => {
  it.each([
    "8.8.8.8",
    "1.1.1.1",
    "2a00:1450:4001:82a::200e",
    "2606:4700:4700::1111",
    "::ffff:8.8.4.4",
    "::ffff:808:404",
    "64:ff9b::8.8.8.8",
    "64:ff9b::808:808",
  ])("accepts the public address %s", (address) => expect(isPublicIpAddress(address)).toBe(true));

  it.each([
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "127.0.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "203.0.113.7",
    "224.0.0.1",
    "::1",
    "::",
    "fe80::1",
    "fe80::1%eth0",
    "fd00::1",
    "2001:db8::1",
    "3fff::1",
    "5f00::1",
    "::ffff:10.0.0.1",
    "localhost",
    "8.8.8",
    "",
  ])("refuses %j", (address) => expect(isPublicIpAddress(address)).toBe(false));

  it.each(CARRYING_PRIVATE)(
    "judges %s by the IPv4 address it carries: refuses %s",
    (_label, address) => expect(isPublicIpAddress(address)).toBe(false),
  );

  it.each(REFUSED_WHOLE)("refuses the whole %s range: %s", (_label, address) =>
    expect(isPublicIpAddress(address)).toBe(false),
  );
});

describe("ipv6Groups", () => {
  it("expands every spelling of an address to the same eight groups", () => {
    const loopbackMapped = [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1];
    expect(ipv6Groups("::ffff:127.0.0.1")).toEqual(loopbackMapped);
    expect(ipv6Groups("::FFFF:7F00:1")).toEqual(loopbackMapped);
    expect(ipv6Groups("0:0:0:0:0:ffff:7f00:0001")).toEqual(loopbackMapped);
    expect(ipv6Groups("2001:db8::")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 0]);
    expect(ipv6Groups("::")).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it("refuses what is not an IPv6 literal, and zoned addresses", () => {
    for (const text of ["127.0.0.1", "fe80::1%eth0", "1::2::3", "", "[::1]"])
      expect(ipv6Groups(text)).toBeNull();
  });
});
