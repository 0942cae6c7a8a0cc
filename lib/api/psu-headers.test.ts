import { describe, expect, it } from "vitest";
import { psuHeadersOf } from "./psu-headers";

const CONNECT_KEY = { partnerId: "partner-1" };
const request = (headers: Record<string, string>) =>
  new Request("http://localhost:3000/api/sync", { method: "POST", headers });

describe("PSU headers (/docs/sync)", () => {
  const present = {
    "X-Psu-Ip-Address": "8.8.8.8",
    "X-Psu-User-Agent": "Mozilla/5.0",
    "X-Psu-Accept-Language": "da-DK",
    "X-Psu-Referer": "",
  };

  it("forwards the holder's details, renamed for the bank, leaving empty ones out", () => {
    expect(psuHeadersOf(request(present), CONNECT_KEY)).toEqual({
      "Psu-Ip-Address": "8.8.8.8",
      "Psu-User-Agent": "Mozilla/5.0",
      "Psu-Accept-Language": "da-DK",
    });
  });

  it("forwards nothing for a key not issued through a Connect client", () => {
    expect(psuHeadersOf(request(present), { partnerId: null })).toBeUndefined();
  });

  it("forwards nothing without a public IP address and a user agent", () => {
    const { "X-Psu-User-Agent": _agent, ...noAgent } = present;
    expect(psuHeadersOf(request(noAgent), CONNECT_KEY)).toBeUndefined();
    const local = { ...present, "X-Psu-Ip-Address": "192.168.0.10" };
    expect(psuHeadersOf(request(local), CONNECT_KEY)).toBeUndefined();
    expect(psuHeadersOf(request({}), CONNECT_KEY)).toBeUndefined();
  });
});
