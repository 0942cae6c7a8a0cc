import { describe, expect, it } from "vitest";
import { baselineHeaders, pageCsp } from "./security-headers";

describe("security headers (docs/security.md)", () => {
  it("sends HSTS only when served over https", () => {
    expect(baselineHeaders({ https: true })["Strict-Transport-Security"]).toBe(
      "max-age=63072000; includeSubDomains",
    );
    expect(baselineHeaders({ https: false })).not.toHaveProperty("Strict-Transport-Security");
  });

  it("never lets a page be framed or load third-party resources", () => {
    const csp = pageCsp("abc", { development: false });
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self' 'nonce-abc' 'strict-dynamic'");
    expect(csp).toContain("style-src 'self' 'nonce-abc'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain("unsafe-eval");
  });

  it("allows eval and inline styles only in development", () => {
    expect(pageCsp("abc", { development: true })).toContain("'unsafe-eval'");
  });
});
