import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  startFakeEnableBanking,
  type FakeEnableBanking,
  applicationKeyPair,
} from "../../../test/fake-enable-banking";
import { UpstreamError } from "../types";
import { enableBankingUpstream } from "./index";
import { toResponseError } from "./errors";
import { createTokenSigner, MAX_JWT_LIFETIME_SECONDS } from "./jwt";

const APPLICATION_ID = "0f5c2f6e-9a51-4c1b-9d7e-3f1f7b1f2a10";

function rsaKeys() {
  return applicationKeyPair();
}

const keys = rsaKeys();
const otherKeys = rsaKeys();
let fake: FakeEnableBanking;

beforeAll(async () => {
  fake = await startFakeEnableBanking({
    applicationId: APPLICATION_ID,
    publicKey: keys.publicKey,
  });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.rejections.length = 0;
  fake.aspsps = [{ name: "Nordea", country: "FI", psu_types: ["personal"] }];
});

const connector = (overrides: Partial<Parameters<typeof enableBankingUpstream>[0]> = {}) =>
  enableBankingUpstream({
    apiUrl: fake.url,
    applicationId: APPLICATION_ID,
    privateKey: keys.privateKey,
    ...overrides,
  });

async function failureOf(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => new Error("expected the call to fail"),
    (caught: unknown) => caught,
  );
  if (!(error instanceof UpstreamError)) throw error;
  return error;
}

describe("the application JWT", () => {
  it("is RS256 with kid = application id, Enable Banking's issuer and audience, 1 h", async () => {
    const before = Math.floor(Date.now() / 1000);
    await connector().listBanks();
    const [request] = fake.requests;
    expect(fake.rejections).toEqual([]);
    expect(request?.jwtHeader).toEqual({ typ: "JWT", alg: "RS256", kid: APPLICATION_ID });
    const payload = request?.jwtPayload ?? {};
    expect(payload.iss).toBe("enablebanking.com");
    expect(payload.aud).toBe("api.enablebanking.com");
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    expect(payload.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
  });

  it("rides on every request, and one token is reused while it is fresh", async () => {
    const upstream = connector();
    await upstream.listBanks();
    await upstream.listBanks({ country: "FI" });
    await upstream.applicationStatus();
    const tokens = fake.requests.map((request) => request.headers.authorization);
    expect(tokens).toHaveLength(3);
    expect(tokens.every((token) => token?.startsWith("Bearer "))).toBe(true);
    expect(new Set(tokens).size).toBe(1);
  });

  it("is signed anew shortly before the cached one expires", async () => {
    // The connector's clock starts 56 minutes behind, so that every token it
    // signs is valid on the server's clock (which refuses an iat in the future).
    let now = new Date(Math.floor(Date.now() / 1000) * 1000 - 56 * 60_000);
    const upstream = connector({ now: () => now });
    // Three lists the connector has not kept yet: each is a request.
    await upstream.listBanks();
    now = new Date(now.getTime() + 54 * 60_000);
    await upstream.listBanks({ country: "FI" });
    now = new Date(now.getTime() + 2 * 60_000);
    await upstream.listBanks({ country: "DK" });
    const [first, second, third] = fake.requests.map((request) => request.jwtPayload?.iat);
    expect(fake.rejections).toEqual([]);
    expect(second).toBe(first);
    expect(third).toBe((first ?? 0) + 56 * 60);
  });

  it("signed with another key is refused: partner_app_inactive", async () => {
    const error = await failureOf(connector({ privateKey: otherKeys.privateKey }).listBanks());
    expect(error.reason).toBe("partner_app_inactive");
    expect(error.status).toBe(503);
    expect(error.message).toBe("Enable Banking GET /aspsps answered 401 UNAUTHORIZED_ACCESS");
    expect(error.bankErrorCode).toBe("UNAUTHORIZED_ACCESS");
    expect(fake.rejections).toEqual(["ERR_JWS_SIGNATURE_VERIFICATION_FAILED"]);
  });

  it("missing altogether is refused as AUTHORIZATION_NOT_PROVIDED: partner_app_inactive", async () => {
    const response = await fetch(`${fake.url}/aspsps`);
    const body = await response.text();
    expect(response.status).toBe(401);
    expect(JSON.parse(body)).toMatchObject({ error: "AUTHORIZATION_NOT_PROVIDED" });
    const error = toResponseError(
      "GET /aspsps",
      { status: 401, headers: response.headers, body },
      new Date(),
    );
    expect(error.reason).toBe("partner_app_inactive");
    expect(error.bankErrorCode).toBe("AUTHORIZATION_NOT_PROVIDED");
  });

  it("with another application's kid is refused: partner_app_inactive", async () => {
    const error = await failureOf(connector({ applicationId: "someone-else" }).listBanks());
    expect(error.reason).toBe("partner_app_inactive");
    expect(error.bankErrorCode).toBe("UNAUTHORIZED_ACCESS");
    expect(fake.rejections).toEqual(["wrong kid"]);
  });

  it("that has expired is refused (401), and the next call signs a new one", async () => {
    let now = new Date(Date.now() - 2 * 3600_000);
    const upstream = connector({ now: () => now });
    const error = await failureOf(upstream.listBanks());
    expect(error.reason).toBe("partner_app_inactive");
    expect(fake.rejections).toEqual(["ERR_JWT_EXPIRED"]);
    now = new Date();
    await expect(upstream.listBanks()).resolves.toHaveLength(1);
    const [stale, fresh] = fake.requests.map((request) => request.jwtPayload?.iat);
    expect(stale).toBeUndefined();
    expect(fresh).toBeGreaterThan(Math.floor(now.getTime() / 1000) - 5);
  });

  it("never appears in an error message", async () => {
    const error = await failureOf(connector({ privateKey: otherKeys.privateKey }).listBanks());
    const token = fake.requests[0]?.headers.authorization?.slice("Bearer ".length) ?? "";
    expect(token.length).toBeGreaterThan(100);
    expect(`${error.message} ${String(error.cause)}`).not.toContain(token.slice(0, 40));
  });
});

describe("the application key", () => {
  it("may come with escaped line breaks, as a one-line setting", async () => {
    const oneLine = keys.privateKey.trim().replace(/\n/g, "\\n");
    await expect(connector({ privateKey: oneLine }).listBanks()).resolves.toHaveLength(1);
  });

  it("may be PKCS#1, as `openssl genrsa` writes it on OpenSSL 1.1 and LibreSSL", async () => {
    const pkcs1 = applicationKeyPair("pkcs1");
    expect(pkcs1.privateKey).toMatch(/^-----BEGIN RSA PRIVATE KEY-----\n/);
    const pkcs1Fake = await startFakeEnableBanking({
      applicationId: APPLICATION_ID,
      publicKey: pkcs1.publicKey,
    });
    try {
      pkcs1Fake.aspsps = [{ name: "Nordea", country: "FI", psu_types: ["personal"] }];
      const banks = connector({ apiUrl: pkcs1Fake.url, privateKey: pkcs1.privateKey }).listBanks();
      await expect(banks).resolves.toHaveLength(1);
      const oneLine = pkcs1.privateKey.trim().replace(/\n/g, "\\n");
      const again = connector({ apiUrl: pkcs1Fake.url, privateKey: oneLine }).listBanks();
      await expect(again).resolves.toHaveLength(1);
      expect(pkcs1Fake.rejections).toEqual([]);
      expect(pkcs1Fake.requests.map((request) => request.jwtHeader?.alg)).toEqual([
        "RS256",
        "RS256",
      ]);
    } finally {
      await pkcs1Fake.close();
    }
  });

  it("that is no RSA private key PEM fails as partner_app_inactive without a request", async () => {
    const ecKey = generateKeyPairSync("ec", {
      namedCurve: "P-256",
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
    });
    const truncated = `${keys.privateKey.slice(0, 300)}\n-----END PRIVATE KEY-----`;
    for (const bad of ["not a key", truncated, ecKey.privateKey, keys.publicKey]) {
      const error = await failureOf(connector({ privateKey: bad }).listBanks());
      expect(error.reason).toBe("partner_app_inactive");
      expect(error.message).toBe(
        "ENABLE_BANKING_PRIVATE_KEY is not an RSA private key in PEM form (PKCS#8 BEGIN PRIVATE KEY or PKCS#1 BEGIN RSA PRIVATE KEY)",
      );
    }
    expect(fake.requests).toHaveLength(0);
  });

  it("lifetimes above Enable Banking's 24 h are refused up front", () => {
    const signer = (lifetimeSeconds: number) =>
      createTokenSigner({
        applicationId: APPLICATION_ID,
        privateKey: keys.privateKey,
        now: () => new Date(),
        lifetimeSeconds,
      });
    expect(() => signer(MAX_JWT_LIFETIME_SECONDS + 1)).toThrow(RangeError);
    expect(() => signer(MAX_JWT_LIFETIME_SECONDS)).not.toThrow();
  });
});
