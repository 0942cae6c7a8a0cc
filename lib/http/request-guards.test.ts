import { describe, expect, it } from "vitest";
import { isMalformedIdPath, isWellFormedPath, refuseBeforeRouting } from "./request-guards";

describe("requests refused before routing", () => {
  it("a path is well formed only when every escape decodes and none is a NUL", () => {
    expect(isWellFormedPath("/api/accounts/6d0c5b0e-1f1e-4a39-9a53-1c1d1e1f2a3b/sync")).toBe(true);
    expect(isWellFormedPath("/api/accounts/%C3%A9/sync")).toBe(true);
    for (const bad of ["/api/%zz", "/api/%", "/api/%2", "/api/%c3%28", "/api/%00", "/api/a%00b"]) {
      expect(isWellFormedPath(bad)).toBe(false);
    }
  });

  it("only id paths are checked for malformed encoding", () => {
    expect(isMalformedIdPath("/api/%zz")).toBe(true);
    expect(isMalformedIdPath("/logos/%00.png")).toBe(true);
    expect(isMalformedIdPath("/api/accounts")).toBe(false);
    expect(isMalformedIdPath("/%zz")).toBe(false);
  });

  it("a malformed id path is refused whatever the method, OPTIONS included", async () => {
    const response = refuseBeforeRouting("OPTIONS", "/api/%zz");
    expect(response?.status).toBe(400);
    expect(await response?.json()).toMatchObject({ error: "invalid_request" });
  });

  it("a malformed id path under /api answers 400 invalid_request as JSON", async () => {
    const response = refuseBeforeRouting("GET", "/api/accounts/%zz/transactions");
    expect(response?.status).toBe(400);
    expect(await response?.json()).toMatchObject({ error: "invalid_request" });
  });

  it("a malformed account id of a sync answers the sync problem shape", async () => {
    const response = refuseBeforeRouting("POST", "/api/accounts/%c0%af/sync");
    expect(response?.status).toBe(400);
    expect(await response?.json()).toMatchObject({ status: 400, reason: "invalid_request" });
  });

  it("a malformed passkey id of My access answers its routes' 404 not_found as JSON", async () => {
    for (const path of ["/account/passkeys/%zz", "/account/passkeys/%ed%a0%80/key"]) {
      const response = refuseBeforeRouting("DELETE", path);
      expect(response?.status, path).toBe(404);
      expect(await response?.json(), path).toMatchObject({ error: "not_found" });
    }
    expect(refuseBeforeRouting("GET", "/account/passkeys")).toBeNull();
    expect(
      refuseBeforeRouting("DELETE", "/account/passkeys/0b8f6b52-6a55-4c36-9c0e-0d2d5b0b1d7a"),
    ).toBeNull();
  });

  it("a malformed logo name answers the logos' 404", async () => {
    const response = refuseBeforeRouting("GET", "/logos/%zz.png");
    expect(response?.status).toBe(404);
    expect(await response?.text()).toBe("Not found");
  });

  it("TRACE and unknown methods answer 405 with no body", async () => {
    for (const method of ["TRACE", "PROPFIND", "FOO"]) {
      const response = refuseBeforeRouting(method, "/consent");
      expect(response?.status).toBe(405);
      expect(await response?.text()).toBe("");
    }
  });

  it("everything else is left to the routes, pages included", () => {
    expect(refuseBeforeRouting("GET", "/api/accounts")).toBeNull();
    expect(refuseBeforeRouting("OPTIONS", "/oauth/token")).toBeNull();
    expect(refuseBeforeRouting("GET", "/%zz")).toBeNull();
  });
});
