import { describe, expect, it } from "vitest";
import { createLogger, REDACTED, redact } from "./log";
import { runInRequest } from "./request-context";

describe("log redaction: no secret, key, code or bank data in logs", () => {
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

  it("matches whole field names, never endings: status_code, countryCode and a refusal's reason pass, sessionId does not", () => {
    expect(
      redact({
        status_code: 502,
        countryCode: "FI",
        bankTransactionCode: "PMNT",
        reason: "private_address",
        sessionId: "s-1",
        session: "s-2",
        passphrase: "p",
        "x-api-key": "k",
        privateKey: "pk",
        secretKey: "sk",
        email: "a@b.example",
        iban: "FI21",
        codes: ["123456"],
        authorizationCode: "ac",
        refresh_token: "rt",
        upstreamSessionEnc: "us",
      }),
    ).toEqual({
      status_code: 502,
      countryCode: "FI",
      bankTransactionCode: "PMNT",
      reason: "private_address",
      sessionId: REDACTED,
      session: REDACTED,
      passphrase: REDACTED,
      "x-api-key": REDACTED,
      privateKey: REDACTED,
      secretKey: REDACTED,
      email: REDACTED,
      iban: REDACTED,
      codes: REDACTED,
      authorizationCode: REDACTED,
      refresh_token: REDACTED,
      upstreamSessionEnc: REDACTED,
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

describe("the log's output (pino)", () => {
  const capture = () => {
    const out: string[] = [];
    const err: string[] = [];
    const logger = createLogger("debug", {
      out: { write: (line) => void out.push(line) },
      err: { write: (line) => void err.push(line) },
    });
    return { logger, out, err };
  };

  it("prints one JSON line with level, ISO time and event; warn and error go to the error stream", () => {
    const { logger, out, err } = capture();
    logger.info({ clientId: "obc_x" }, "token.issued");
    logger.warn({}, "sync.busy");
    expect(out).toHaveLength(1);
    expect(out[0]?.endsWith("}\n")).toBe(true);
    const line = JSON.parse(out[0] ?? "") as Record<string, unknown>;
    expect(line).toEqual({
      level: "info",
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      event: "token.issued",
      clientId: "obc_x",
    });
    expect(err.map((text) => JSON.parse(text) as unknown)).toEqual([
      expect.objectContaining({ level: "warn", event: "sync.busy" }),
    ]);
  });

  it("prints [redacted] and nothing of a secret in nested fields, headers and errors", () => {
    const { logger, out, err } = capture();
    const secrets = {
      key: `ebk_${"k".repeat(43)}`,
      secret: `obs_${"s".repeat(43)}`,
      verifier: "v".repeat(43),
      code: "c0de-c0de-c0de",
      privateKey: "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg",
      iban: "DK5000400440116243",
      email: "someone@example.com",
    };
    logger.error(
      {
        request: {
          headers: { "x-api-key": secrets.key, authorization: `Basic ${secrets.secret}` },
          body: { code: secrets.code, code_verifier: secrets.verifier },
        },
        partner: { privateKey: secrets.privateKey, account: { iban: secrets.iban } },
        user: { email: secrets.email },
        error: new Error(`refused ${secrets.key}`, { cause: { client_secret: secrets.secret } }),
      },
      "oauth.server_error",
    );
    const printed = [...out, ...err].join("");
    for (const value of Object.values(secrets)) expect(printed).not.toContain(value);
    const line = JSON.parse(err[0] ?? "") as {
      request: { headers: Record<string, string>; body: Record<string, string> };
      partner: { privateKey: string; account: { iban: string } };
    };
    expect(line.request.headers["x-api-key"]).toBe(REDACTED);
    expect(line.request.body.code_verifier).toBe(REDACTED);
    expect(line.partner.privateKey).toBe(REDACTED);
    expect(line.partner.account.iban).toBe(REDACTED);
  });

  it("keeps an error's stack at error level, scrubbed like its message; below error, no stack", () => {
    const { logger, out, err } = capture();
    const key = `ebk_${"k".repeat(43)}`;
    const error = new Error(`refused ${key}`);
    logger.error({ error }, "sync.account_failed");
    logger.info({ error }, "sync.retrying");
    const [atError] = err.map((text) => JSON.parse(text) as { error: Record<string, string> });
    const [atInfo] = out.map((text) => JSON.parse(text) as { error: Record<string, string> });
    expect(atError?.error.message).toBe("refused [redacted]");
    expect(atError?.error.stack).toMatch(/^Error: refused \[redacted\]\n\s+at .*log\.test\.ts/);
    expect(atInfo?.error).toEqual({ name: "Error", message: "refused [redacted]" });
    expect([...out, ...err].join("")).not.toContain(key);
  });

  it("carries the id of the request it was written for", () => {
    const { logger, out } = capture();
    runInRequest({ requestId: "req-0123456789" }, () => logger.info({}, "inside"));
    logger.info({}, "outside");
    const [inside, outside] = out.map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(inside?.requestId).toBe("req-0123456789");
    expect(outside).not.toHaveProperty("requestId");
  });
});
