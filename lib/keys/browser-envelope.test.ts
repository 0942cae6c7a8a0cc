import { describe, expect, it } from "vitest";
import { generateKeyPair, sealJson } from "../crypto/envelope";
import { openEnvelopeInBrowser } from "./browser-envelope";

describe("opening an envelope with Web Crypto", () => {
  it("opens what the server sealed, byte for byte", async () => {
    const keys = generateKeyPair();
    const payload = { nonce: "bm9uY2U=", note: "æøå ✓" };
    const envelope = sealJson(keys.publicKeyRawB64, payload);
    expect(await openEnvelopeInBrowser(keys.privateKeyPkcs8B64, envelope)).toEqual(payload);
  });

  it("refuses another key, a tampered envelope and another version", async () => {
    const keys = generateKeyPair();
    const envelope = sealJson(keys.publicKeyRawB64, { nonce: "x" });
    await expect(
      openEnvelopeInBrowser(generateKeyPair().privateKeyPkcs8B64, envelope),
    ).rejects.toThrow();
    const bytes = Buffer.from(envelope, "base64");
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    await expect(
      openEnvelopeInBrowser(keys.privateKeyPkcs8B64, bytes.toString("base64")),
    ).rejects.toThrow();
    const v2 = Buffer.concat([Buffer.of(2), Buffer.alloc(120, 7)]).toString("base64");
    await expect(openEnvelopeInBrowser(keys.privateKeyPkcs8B64, v2)).rejects.toThrow(
      "Invalid or unsupported envelope",
    );
  });
});
