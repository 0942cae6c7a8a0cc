import { describe, expect, it } from "vitest";
import { buildServerMetadata } from "./metadata";

const settings = {
  issuer: "https://staging.open-banking.io",
  vendorBlock: "open_banking_io",
  documentationUrl: "https://staging.open-banking.io/docs",
  recipientKeyRequired: false,
};

describe("server metadata", () => {
  it("derives every endpoint from the issuer", () => {
    const metadata = buildServerMetadata(settings);
    expect(metadata.issuer).toBe(settings.issuer);
    expect(metadata.token_endpoint).toBe("https://staging.open-banking.io/oauth/token");
  });

  it("names the vendor block after the deployment setting", () => {
    const metadata = buildServerMetadata({ ...settings, vendorBlock: "acme_bank" });
    expect(metadata).toHaveProperty("acme_bank.api_key_header", "X-Api-Key");
    expect(metadata).not.toHaveProperty("open_banking_io");
  });

  it("publishes whether partners must hold a recipient key", () => {
    const metadata = buildServerMetadata({ ...settings, recipientKeyRequired: true });
    expect(metadata).toHaveProperty("open_banking_io.recipient_key_required", true);
  });
});
