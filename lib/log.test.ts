import { describe, expect, it } from "vitest";
import { REDACTED, redact } from "./log";

describe("log redaction (see docs/security.md: no secret, key, code or bank data in logs)", () => {
  it("redacts secrets, keys, codes and bank data by field name, at any depth", () => {
    const fields = {
      clientId: "obc_x",
      client_secret: "obs_s",
      apiKey: "ebk_k",
      code: "c",
      code_verifier: "v",
      nested: { authorization: "Basic x", uidEnc: "AQ…", iban: "DK50" },
      list: [{ accessToken: "t" }],
    };
    expect(redact(fields)).toEqual({
      clientId: "obc_x",
      client_secret: REDACTED,
      apiKey: REDACTED,
      code: REDACTED,
      code_verifier: REDACTED,
      nested: { authorization: REDACTED, uidEnc: REDACTED, iban: REDACTED },
      list: [{ accessToken: REDACTED }],
    });
  });

  it("scrubs keys, client secrets and PEM keys from any text, error messages included", () => {
    const key = `ebk_${"a1B2".repeat(10)}`;
    const secret = `obs_${"Z9-_".repeat(10)}`;
    const pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----";
    const logged = JSON.stringify(
      redact({
        note: `token ${key} for obc_demo`,
        error: new Error(`bad secret ${secret} and ${pem}`),
        list: [`x ${key}`],
      }),
    );
    for (const leaked of [key, secret, "MIIEvQIBADANBg"]) expect(logged).not.toContain(leaked);
    expect(logged).toContain("obc_demo");
    expect(logged).toContain("for obc_demo");
  });

  it("keeps errors readable without their own fields", () => {
    const error = new Error("boom", { cause: { password: "p" } });
    expect(redact({ error })).toEqual({
      error: { name: "Error", message: "boom", cause: { password: REDACTED } },
    });
  });
});
