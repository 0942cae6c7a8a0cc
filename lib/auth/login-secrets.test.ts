import { describe, expect, it } from "vitest";
import { keyedHash } from "../crypto/keyed-hash";
import {
  hashPin,
  isSameBrowser,
  hashBrowserNonce,
  loginNonceCookie,
  newBrowserNonce,
  newLinkToken,
  newPin,
  pinMatches,
} from "./login-secrets";

describe("login challenge secrets", () => {
  it("draws PINs of exactly 6 digits, leading zeros kept, every digit about equally often", () => {
    const draws = 20_000;
    const counts = Array.from({ length: 6 }, () => new Array<number>(10).fill(0));
    let leadingZero = 0;
    for (let i = 0; i < draws; i += 1) {
      const pin = newPin();
      expect(pin).toMatch(/^\d{6}$/);
      if (pin.startsWith("0")) leadingZero += 1;
      [...pin].forEach((digit, position) => {
        counts[position]![Number(digit)]! += 1;
      });
    }
    // 2 000 expected per digit and position; ±15 % is more than 6 standard deviations.
    for (const position of counts) {
      for (const count of position) expect(count).toBeGreaterThan(1700);
      for (const count of position) expect(count).toBeLessThan(2300);
    }
    expect(leadingZero).toBeGreaterThan(1700);
  });

  it("hashes a PIN with the challenge id: equal PINs of two challenges hash differently", () => {
    const pin = "123456";
    const a = hashPin("00000000-0000-4000-8000-000000000001", pin);
    const b = hashPin("00000000-0000-4000-8000-000000000002", pin);
    expect(a).not.toBe(b);
    expect(a).not.toBe(keyedHash("pin", pin));
    expect(pinMatches("00000000-0000-4000-8000-000000000001", pin, a)).toBe(true);
    expect(pinMatches("00000000-0000-4000-8000-000000000001", "123457", a)).toBe(false);
    expect(pinMatches("00000000-0000-4000-8000-000000000002", pin, a)).toBe(false);
  });

  it("mints 256-bit link tokens and browser nonces", () => {
    expect(newLinkToken()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newBrowserNonce()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newLinkToken()).not.toBe(newLinkToken());
  });

  it("recognizes the browser that asked, and no other", () => {
    const nonce = newBrowserNonce();
    const stored = hashBrowserNonce(nonce);
    expect(isSameBrowser(nonce, stored)).toBe(true);
    expect(isSameBrowser(newBrowserNonce(), stored)).toBe(false);
    expect(isSameBrowser(null, stored)).toBe(false);
    expect(isSameBrowser("", stored)).toBe(false);
  });

  it("sets the nonce cookie HttpOnly and SameSite=Lax, outliving the 15-minute challenge", () => {
    const cookie = loginNonceCookie("nonce-value");
    expect(cookie).toBe("bc_login_nonce=nonce-value; Path=/; Max-Age=3600; HttpOnly; SameSite=Lax");
  });
});
