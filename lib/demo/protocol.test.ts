import { describe, expect, it } from "vitest";
import {
  basicAuthorization,
  buildAuthorizeUrl,
  constantTimeEquals,
  createCodeVerifier,
  createState,
  maskSecret,
  parseRelay,
  readRelayFields,
  toCodeChallenge,
} from "./protocol";

const ISSUER = "http://localhost:3000";

const relay = (fields: Record<string, string>) => readRelayFields(new URLSearchParams(fields));

const expected = (state: string, issuer = ISSUER) => ({
  stateMatches: (presented: string) => constantTimeEquals(state, presented),
  issuer,
});

const SUCCESS = {
  code: "code-1",
  state: "st-1",
  iss: ISSUER,
  privateKey: "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg",
  publicKey: "BIvm",
};

describe("PKCE and state (/docs/flow)", () => {
  it("derives the RFC 7636 Appendix B challenge", () => {
    expect(toCodeChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).toBe(
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });

  it("makes a 43-char verifier, a 43-char challenge and a 22-char state, fresh each time", () => {
    const verifier = createCodeVerifier();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(toCodeChallenge(verifier)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(createState()).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(createState()).not.toBe(createState());
  });

  it("builds the authorize query in the SDK's order with form_post and S256", () => {
    const url = buildAuthorizeUrl({
      issuer: `${ISSUER}/`,
      clientId: "obc_demo",
      redirectUri: "https://app.example.com/callback",
      state: "s123",
      codeChallenge: "c456",
    });
    expect(url).toBe(
      `${ISSUER}/oauth/authorize?response_type=code&client_id=obc_demo&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcallback&scope=accounts.read&state=s123&code_challenge=c456&code_challenge_method=S256&response_mode=form_post`,
    );
  });

  it("percent-encodes id and secret before Basic (the SDKs' test vector)", () => {
    expect(basicAuthorization("obc_demo", "s3cret:with/odd chars")).toBe(
      `Basic ${Buffer.from("obc_demo:s3cret%3Awith%2Fodd%20chars").toString("base64")}`,
    );
  });
});

describe("constantTimeEquals", () => {
  it("matches only identical, non-empty strings", () => {
    expect(constantTimeEquals("abc", "abc")).toBe(true);
    expect(constantTimeEquals("abc", "abd")).toBe(false);
    expect(constantTimeEquals("abc", "abcd")).toBe(false);
    expect(constantTimeEquals("", "")).toBe(false);
  });
});

describe("parseRelay (/docs/relay, newest rules)", () => {
  it("accepts a relay with matching state and iss", () => {
    expect(parseRelay(relay(SUCCESS), expected("st-1"))).toEqual({
      kind: "success",
      code: "code-1",
      privateKey: SUCCESS.privateKey,
      publicKey: "BIvm",
    });
  });

  it("checks state first, even on an error relay", () => {
    const outcome = parseRelay(
      relay({ error: "access_denied", state: "other", iss: ISSUER }),
      expected("st-1"),
    );
    expect(outcome).toEqual({ kind: "state_mismatch" });
    expect(parseRelay(relay({ ...SUCCESS, state: "" }), expected("st-1")).kind).toBe(
      "state_mismatch",
    );
  });

  it("requires iss to equal the discovered issuer, ignoring trailing slashes", () => {
    expect(parseRelay(relay({ ...SUCCESS, iss: "" }), expected("st-1")).kind).toBe(
      "issuer_mismatch",
    );
    expect(
      parseRelay(relay({ ...SUCCESS, iss: "http://evil.example" }), expected("st-1")).kind,
    ).toBe("issuer_mismatch");
    expect(parseRelay(relay({ ...SUCCESS, iss: `${ISSUER}/` }), expected("st-1")).kind).toBe(
      "success",
    );
  });

  it("reports access_denied only after state and iss passed", () => {
    const fields = relay({
      error: "access_denied",
      error_description: "the user declined the authorization",
      state: "st-1",
      iss: ISSUER,
    });
    expect(parseRelay(fields, expected("st-1"))).toEqual({
      kind: "access_denied",
      description: "the user declined the authorization",
    });
    expect(parseRelay(fields, expected("st-1", "http://other.example")).kind).toBe(
      "issuer_mismatch",
    );
  });

  it("maps other errors to oauth_error", () => {
    const outcome = parseRelay(
      relay({
        error: "temporarily_unavailable",
        error_description: "x",
        state: "st-1",
        iss: ISSUER,
      }),
      expected("st-1"),
    );
    expect(outcome).toEqual({
      kind: "oauth_error",
      error: "temporarily_unavailable",
      description: "x",
    });
  });

  it("requires a code, then a private key (user-key mode)", () => {
    expect(parseRelay(relay({ ...SUCCESS, code: "" }), expected("st-1")).kind).toBe("missing_code");
    expect(parseRelay(relay({ ...SUCCESS, privateKey: "" }), expected("st-1")).kind).toBe(
      "missing_private_key",
    );
  });

  it("opens partner-key relays (empty key fields) with the partner's configured key", () => {
    const outcome = parseRelay(relay({ ...SUCCESS, privateKey: "", publicKey: "" }), {
      ...expected("st-1"),
      partnerPrivateKey: "partner-pkcs8",
    });
    expect(outcome).toMatchObject({ kind: "success", privateKey: "partner-pkcs8" });
    // A relayed user key wins over the configured one.
    const userKey = parseRelay(relay(SUCCESS), { ...expected("st-1"), partnerPrivateKey: "p" });
    expect(userKey).toMatchObject({ kind: "success", privateKey: SUCCESS.privateKey });
  });

  it("treats a repeated field as empty", () => {
    const form = new URLSearchParams(SUCCESS);
    form.append("state", "st-2");
    expect(parseRelay(readRelayFields(form), expected("st-1")).kind).toBe("state_mismatch");
  });
});

describe("maskSecret", () => {
  it("never shows a secret whole", () => {
    const secret = "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgSECRETSECRET";
    const masked = maskSecret(secret);
    expect(masked).not.toContain("SECRETSECRET");
    expect(masked).toContain(`${secret.length} chars`);
    expect(maskSecret("short")).toBe("•••••");
  });
});
