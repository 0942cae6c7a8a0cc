import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEVELOPMENT_SECRET, EnvError, parseEnv, SETTING_NAMES } from "./env";

function problems(source: Record<string, string>): string[] {
  try {
    parseEnv(source);
    return [];
  } catch (error) {
    if (error instanceof EnvError) return error.problems;
    throw error;
  }
}

const production = {
  ISSUER: "https://connect.example.com",
  SECRET_KEY: "x".repeat(48),
  DATABASE_URL: "postgresql://u:p@db.example.com:5432/bank",
  REDIS_URL: "redis://cache.example.com:6379",
  RESEND_API_KEY: "re_123",
  UPSTREAM: "sandbox",
};

describe("settings", () => {
  it("needs nothing in local mode and applies the development defaults", () => {
    const env = parseEnv({});
    expect(env.mode).toBe("local");
    expect(env.issuer).toBe("http://localhost:3000");
    expect(env.vendorBlock).toBe("open_banking_io");
    expect(env.secretKey).toBe(DEVELOPMENT_SECRET);
    expect(env.upstream).toBe("sandbox");
    expect(env.demoEnabled).toBe(true);
  });

  it("strips trailing slashes from the issuer", () => {
    expect(parseEnv({ ISSUER: "http://localhost:3000///" }).issuer).toBe("http://localhost:3000");
  });

  it("names each invalid setting", () => {
    const found = problems({ ISSUER: "ftp://x", PORT: "99999", DATABASE_URL: "mysql://x" });
    expect(found.some((p) => p.startsWith("ISSUER"))).toBe(true);
    expect(found.some((p) => p.startsWith("PORT"))).toBe(true);
    expect(found.some((p) => p.startsWith("DATABASE_URL"))).toBe(true);
  });

  it("refuses an issuer with a query or credentials", () => {
    expect(problems({ ISSUER: "http://localhost:3000/?a=1" })[0]).toMatch(/^ISSUER/);
    expect(problems({ ISSUER: "http://u:p@localhost:3000" })[0]).toMatch(/^ISSUER/);
  });

  it("accepts a complete production configuration", () => {
    const env = parseEnv(production);
    expect(env.mode).toBe("production");
    expect(env.demoEnabled).toBe(false);
  });

  it("refuses every development default in production, naming the setting", () => {
    const found = problems({ ISSUER: "https://connect.example.com" });
    for (const name of ["SECRET_KEY", "DATABASE_URL", "REDIS_URL", "RESEND_API_KEY", "UPSTREAM"]) {
      expect(
        found.some((p) => p.includes(name)),
        name,
      ).toBe(true);
    }
  });

  it("refuses plain http for a public issuer", () => {
    expect(problems({ ...production, ISSUER: "http://connect.example.com" })).toContain(
      "ISSUER must be an https:// URL in production",
    );
  });

  it("requires the Enable Banking credentials when that upstream is chosen", () => {
    const found = problems({ UPSTREAM: "enablebanking" });
    expect(found).toHaveLength(2);
    expect(found.join()).toContain("ENABLE_BANKING_APPLICATION_ID");
    expect(found.join()).toContain("ENABLE_BANKING_PRIVATE_KEY");
  });

  it("wants both Upstash settings or neither", () => {
    expect(problems({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" })[0]).toMatch(/together/);
  });

  it("treats blank values as unset", () => {
    expect(parseEnv({ ISSUER: "  ", SECRET_KEY: "" }).issuer).toBe("http://localhost:3000");
  });
});

describe(".env.example", () => {
  it("lists every setting", () => {
    const listed = readFileSync(new URL("../.env.example", import.meta.url), "utf8")
      .split("\n")
      .map((line) => /^([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
      .filter((name): name is string => Boolean(name));
    for (const name of SETTING_NAMES.filter((n) => n !== "NODE_ENV")) {
      expect(listed, name).toContain(name);
    }
  });
});
