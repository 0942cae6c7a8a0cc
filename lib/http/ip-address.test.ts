import { describe, expect, it } from "vitest";
import { isPublicIpAddress } from "./ip-address";

describe("isPublicIpAddress", () => {
  it.each(["8.8.8.8", "1.1.1.1", "2a00:1450:4001:82a::200e", "::ffff:8.8.4.4"])(
    "accepts the public address %s",
    (address) => expect(isPublicIpAddress(address)).toBe(true),
  );

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
    "fd00::1",
    "2001:db8::1",
    "::ffff:10.0.0.1",
    "localhost",
    "8.8.8",
    "",
  ])("refuses %j", (address) => expect(isPublicIpAddress(address)).toBe(false));
});
