import { describe, expect, it } from "vitest";
import {
  describeClientIdProblem,
  generateClientId,
  generateClientSecret,
  hashClientSecret,
  isWellFormedObcClientId,
  PREVIOUS_SECRET_GRACE_MS,
  toRotatedSecretHashes,
  verifyClientSecret,
} from "./client-credentials";

const NOW = new Date("2030-01-01T12:00:00Z");

describe("client ids", () => {
  it("are obc_ plus 24 alphanumerics, different every time", () => {
    const ids = new Set(Array.from({ length: 50 }, generateClientId));
    expect(ids.size).toBe(50);
    for (const id of ids) {
      expect(id).toMatch(/^obc_[A-Za-z0-9]{24}$/);
      expect(isWellFormedObcClientId(id)).toBe(true);
    }
  });

  it("accept the demo client's fixed obc_ id", () => {
    expect(describeClientIdProblem("obc_demo_budget_app")).toBeNull();
  });

  it.each(["abc", "legacy-client.v1", "A_b-9.z", "x".repeat(64)])(
    "accept the legacy id %j",
    (id) => {
      expect(describeClientIdProblem(id)).toBeNull();
    },
  );

  it.each(["ab", "x".repeat(65), "has space", "semi;colon", "ünï", "a/b", ""])(
    "refuse the malformed legacy id %j",
    (id) => {
      expect(describeClientIdProblem(id)).toMatch(/3-64 characters/);
    },
  );

  it.each(["obc_", "obc_short", "obc_has.dot12345", `obc_${"a".repeat(61)}`])(
    "refuse an obc_ id that is not well-formed: %j",
    (id) => {
      expect(describeClientIdProblem(id)).toMatch(/starting with obc_/);
    },
  );
});

describe("client secrets", () => {
  it("are obs_ plus base64url of 256 random bits", () => {
    const secret = generateClientSecret();
    expect(secret).toMatch(/^obs_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret.slice(4), "base64url")).toHaveLength(32);
    expect(generateClientSecret()).not.toBe(secret);
  });

  it("are stored as a 64-hex keyed hash, never as themselves", () => {
    const secret = generateClientSecret();
    const hash = hashClientSecret(secret);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(secret.slice(4));
    expect(hashClientSecret(secret)).toBe(hash);
  });
});

describe("verifyClientSecret", () => {
  const current = generateClientSecret();
  const client = {
    secretHash: hashClientSecret(current),
    previousSecretHash: null,
    previousSecretExpiresAt: null,
  };

  it("accepts the current secret", () => {
    expect(verifyClientSecret(client, current, NOW)).toBe(true);
  });

  it("refuses a wrong, empty or truncated secret", () => {
    expect(verifyClientSecret(client, generateClientSecret(), NOW)).toBe(false);
    expect(verifyClientSecret(client, "", NOW)).toBe(false);
    expect(verifyClientSecret(client, current.slice(0, -1), NOW)).toBe(false);
  });

  it("refuses the stored hash presented as the secret", () => {
    expect(verifyClientSecret(client, client.secretHash, NOW)).toBe(false);
  });

  describe("after a rotation (docs/protocol.md#client-authentication)", () => {
    const next = generateClientSecret();
    const rotated = toRotatedSecretHashes(client.secretHash, next, NOW);

    it("moves the current hash to previous, expiring 24 hours later", () => {
      expect(rotated.previousSecretHash).toBe(client.secretHash);
      expect(rotated.previousSecretExpiresAt?.getTime()).toBe(
        NOW.getTime() + PREVIOUS_SECRET_GRACE_MS,
      );
      expect(PREVIOUS_SECRET_GRACE_MS).toBe(86_400_000);
    });

    it("accepts the new secret", () => {
      expect(verifyClientSecret(rotated, next, NOW)).toBe(true);
    });

    it("accepts the previous secret until just before its expiry", () => {
      const lastMoment = new Date(NOW.getTime() + PREVIOUS_SECRET_GRACE_MS - 1);
      expect(verifyClientSecret(rotated, current, lastMoment)).toBe(true);
    });

    it("refuses the previous secret from its expiry on", () => {
      const expiry = new Date(NOW.getTime() + PREVIOUS_SECRET_GRACE_MS);
      expect(verifyClientSecret(rotated, current, expiry)).toBe(false);
      expect(verifyClientSecret(rotated, current, new Date(expiry.getTime() + 1))).toBe(false);
    });

    it("still accepts the new secret after the previous one expired", () => {
      const later = new Date(NOW.getTime() + 2 * PREVIOUS_SECRET_GRACE_MS);
      expect(verifyClientSecret(rotated, next, later)).toBe(true);
    });

    it("refuses a previous hash that has no expiry recorded", () => {
      expect(verifyClientSecret({ ...rotated, previousSecretExpiresAt: null }, current, NOW)).toBe(
        false,
      );
    });
  });
});
