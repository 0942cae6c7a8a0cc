import { describe, expect, it } from "vitest";
import { clearCookie, cookieName, readCookie, serializeCookie } from "./cookies";

describe("cookies", () => {
  it("reads one cookie among several", () => {
    const request = new Request("http://x/", {
      headers: { cookie: "a=1; bc_session=abc%3D; b=2" },
    });
    expect(readCookie(request, "bc_session")).toBe("abc=");
    expect(readCookie(request, "missing")).toBeNull();
  });

  it("is HttpOnly and SameSite=Lax, Secure with the __Host- prefix on https", () => {
    expect(
      serializeCookie(cookieName("bc_session", true), "v", { maxAgeSeconds: 60, https: true }),
    ).toBe("__Host-bc_session=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure");
    expect(
      serializeCookie(cookieName("bc_session", false), "v", { maxAgeSeconds: 60, https: false }),
    ).toBe("bc_session=v; Path=/; Max-Age=60; HttpOnly; SameSite=Lax");
  });

  it("clears by expiring at once", () => {
    expect(clearCookie("bc_flow", false)).toContain("Max-Age=0");
  });

  it("ignores undecodable values", () => {
    const request = new Request("http://x/", { headers: { cookie: "bc_session=%E0%A4%A" } });
    expect(readCookie(request, "bc_session")).toBeNull();
  });
});
