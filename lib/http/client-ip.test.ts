import { describe, expect, it } from "vitest";
import { CLIENT_IP_HEADER, clientIpOf, resolveClientIp } from "./client-ip";

describe("client address (see docs/security.md: trusted proxy headers only)", () => {
  it("uses the socket address when no proxy is trusted, ignoring X-Forwarded-For", () => {
    expect(resolveClientIp("203.0.113.9", "1.2.3.4", 0)).toBe("203.0.113.9");
  });

  it("takes the entry the trusted proxy appended", () => {
    expect(resolveClientIp("10.0.0.2", "1.2.3.4, 198.51.100.7", 1)).toBe("198.51.100.7");
  });

  it("counts hops from the right, so forged entries on the left never win", () => {
    const forged = "6.6.6.6, 7.7.7.7, 198.51.100.7, 10.0.0.5";
    expect(resolveClientIp("10.0.0.2", forged, 2)).toBe("198.51.100.7");
  });

  it("falls back to the socket when the chain is shorter than the hops or garbage", () => {
    expect(resolveClientIp("10.0.0.2", "", 1)).toBe("10.0.0.2");
    expect(resolveClientIp("10.0.0.2", "not-an-ip", 1)).toBe("10.0.0.2");
  });

  it("unwraps IPv4-mapped IPv6 socket addresses", () => {
    expect(resolveClientIp("::ffff:127.0.0.1", undefined, 0)).toBe("127.0.0.1");
  });

  it("reads the stamped header", () => {
    const request = new Request("http://x/", { headers: { [CLIENT_IP_HEADER]: "192.0.2.1" } });
    expect(clientIpOf(request)).toBe("192.0.2.1");
  });
});
