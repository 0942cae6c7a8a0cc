import { randomBytes, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  clearKeysCookie,
  KEYS_COOKIE_LIFETIME_SECONDS,
  keysCookie,
  openCredentials,
  sealCredentials,
} from "./key-cookie";

const credentials = { apiKey: "ebk_example_api_key_value", privateKey: "MIGHAgEAMBMGByqGSM49Ag" };

describe("the demo's keys cookie", () => {
  it("opens for the session it was sealed for, and shows neither key in the clear", () => {
    const session = randomUUID();
    const value = sealCredentials(session, credentials);
    expect(value).not.toContain("ebk_");
    expect(value).not.toContain(credentials.privateKey);
    expect(openCredentials(value, session)).toEqual(credentials);
  });

  it("keeps partner-key mode's empty private key empty", () => {
    const session = randomUUID();
    const value = sealCredentials(session, { apiKey: "ebk_x", privateKey: null });
    expect(openCredentials(value, session)).toEqual({ apiKey: "ebk_x", privateKey: null });
  });

  it("refuses an expired cookie, whatever the browser still sends", () => {
    const session = randomUUID();
    const sealedAt = Date.now() - KEYS_COOKIE_LIFETIME_SECONDS * 1000 - 1;
    const value = sealCredentials(session, credentials, sealedAt);
    expect(openCredentials(value, session)).toBeNull();
    expect(openCredentials(value, session, sealedAt)).toEqual(credentials);
  });

  it("refuses another session's cookie, an altered one and garbage", () => {
    const session = randomUUID();
    const value = sealCredentials(session, credentials);
    expect(openCredentials(value, randomUUID())).toBeNull();
    const bytes = Buffer.from(value, "base64url");
    bytes[20] = (bytes[20] ?? 0) ^ 1;
    expect(openCredentials(bytes.toString("base64url"), session)).toBeNull();
    expect(openCredentials("not-a-cookie", session)).toBeNull();
    expect(openCredentials("", session)).toBeNull();
    expect(openCredentials(null, session)).toBeNull();
  });

  it("is unreadable once the process that sealed it is gone (its key lives only in memory)", () => {
    const session = randomUUID();
    const value = sealCredentials(session, credentials);
    const memory = globalThis as unknown as { bankConnectDemoCookieKey?: Buffer };
    const key = memory.bankConnectDemoCookieKey;
    try {
      memory.bankConnectDemoCookieKey = randomBytes(32);
      expect(openCredentials(value, session)).toBeNull();
    } finally {
      memory.bankConnectDemoCookieKey = key;
    }
    expect(openCredentials(value, session)).toEqual(credentials);
  });

  it("is HttpOnly, SameSite=Lax, limited to /demo, short-lived, and Secure on https", () => {
    expect(keysCookie("v", false)).toBe(
      `demo_keys=v; Path=/demo; Max-Age=${KEYS_COOKIE_LIFETIME_SECONDS}; HttpOnly; SameSite=Lax`,
    );
    expect(keysCookie("v", true)).toBe(
      `__Secure-demo_keys=v; Path=/demo; Max-Age=${KEYS_COOKIE_LIFETIME_SECONDS}; HttpOnly; SameSite=Lax; Secure`,
    );
    expect(KEYS_COOKIE_LIFETIME_SECONDS).toBeLessThanOrEqual(60 * 60);
    expect(clearKeysCookie(false)).toBe(
      "demo_keys=; Path=/demo; Max-Age=0; HttpOnly; SameSite=Lax",
    );
  });
});
