import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PASSKEY_PRF_INPUT, PASSKEY_PRF_LABEL } from "./prf";

describe("the PRF input", () => {
  it("is SHA-256 of the versioned label, 32 bytes", () => {
    expect(PASSKEY_PRF_LABEL).toBe("bank-connect/passkey-prf/v1");
    expect(Buffer.from(PASSKEY_PRF_INPUT)).toEqual(
      createHash("sha256").update(PASSKEY_PRF_LABEL, "utf8").digest(),
    );
  });
});
