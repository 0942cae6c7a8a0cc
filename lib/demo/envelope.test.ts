import { describe, expect, it } from "vitest";
import { openEnvelope, openOptional } from "./envelope";

// The SDKs' known-good vector.
const PRIVATE_KEY =
  "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgwtrn7m/sa34/hBuZ8N4AL8a7B5LEIsXdKPtRA/QcVQehRANCAASL5jRvJBBcHolA7G4sa2gkTviz7bdoP0gKMY1yfKq7GjDSptjHojQf5NjRo7H2BjWmwpEjwv9O79Q3c3/a+35l";
const UID_ENVELOPE =
  "AQRnbwT4RL0CIfW+/XM1fRFPs8Ydfq73vDgSQuszQMH5Q5T/m46Qpi9fBA3po+teUaEJ+K/xq7l5EK2b4cd7MMoFGTdvzmtmcpLy4c8eoIWVhO2aTVyjx6V8tW1LO2AO014fI/6ELhWHi4Es/SxFcs4UvfUrrl27J3vK4o4m2+FJC8FX4NGcITzYnLM=";
const WRONG_KEY =
  "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgdB9vjCwdrF1FckSNDHrw8M7PNNkpUB/tAK/EgAbZWvihRANCAASgg8XOKlU9VeYCee9+tQKtDSkFze10CRTA4b2gGKDlHIFw+QTf1AkjAjLfWqCJ4BctUqQtAYs0v0Y90Bw1wsBF";

describe("the demo's envelope opener (/docs/envelopes)", () => {
  it("opens the known-good vector", () => {
    expect(openEnvelope(PRIVATE_KEY, UID_ENVELOPE)).toEqual({
      uid: "c5d93aa7-5e23-4da0-ba88-42b9a584492c",
    });
  });

  it("rejects a wrong key and a version-2 envelope", () => {
    expect(() => openEnvelope(WRONG_KEY, UID_ENVELOPE)).toThrow();
    const v2 = Buffer.concat([Buffer.from([0x02]), Buffer.alloc(120, 0x07)]).toString("base64");
    expect(() => openEnvelope(PRIVATE_KEY, v2)).toThrow("Invalid or unsupported envelope");
  });

  it("opens a missing envelope to null", () => {
    expect(openOptional(PRIVATE_KEY, null)).toBeNull();
    expect(openOptional(PRIVATE_KEY, "")).toBeNull();
  });
});
