import { generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createMailer } from "./mail";
import {
  DEVELOPMENT_SECRET,
  EnvError,
  isLoopbackUrl,
  parseEnv,
  SETTING_NAMES,
  stageOfNextPhase,
  weakSecretReason,
  type EnvStage,
} from "./env";

function refusal(source: Record<string, string>, stage?: EnvStage): EnvError | null {
  try {
    parseEnv(source, stage);
    return null;
  } catch (error) {
    if (error instanceof EnvError) return error;
    throw error;
  }
}

const problems = (source: Record<string, string>, stage?: EnvStage) =>
  refusal(source, stage)?.problems ?? [];

const production = {
  ISSUER: "https://connect.example.com",
  SECRET_KEY: "0rB6qJx8Yc2WmT5vKz1LhN4sFd7gPa9eRu3iVw6yXo0tQbEj",
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

  it("reads the Enable Banking key as PKCS#1 or PKCS#8 and refuses anything else at start", () => {
    const pkcs8Key = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    }).privateKey;
    const withKey = (key: string) =>
      problems({
        UPSTREAM: "enablebanking",
        ENABLE_BANKING_APPLICATION_ID: "app",
        ENABLE_BANKING_PRIVATE_KEY: key,
      });
    expect(pkcs1Key).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    expect(withKey(pkcs1Key)).toEqual([]);
    expect(withKey(pkcs1Key.trim().replace(/\n/g, "\\n"))).toEqual([]);
    expect(withKey(pkcs8Key)).toEqual([]);
    const ecKey = generateKeyPairSync("ec", {
      namedCurve: "P-256",
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    }).privateKey;
    const truncated = pkcs1Key.slice(0, 200) + "\n-----END RSA PRIVATE KEY-----";
    for (const bad of ["pem", truncated, ecKey]) {
      expect(withKey(bad)).toEqual([
        "ENABLE_BANKING_PRIVATE_KEY is not an RSA private key in PEM form (PKCS#8 BEGIN PRIVATE KEY or PKCS#1 BEGIN RSA PRIVATE KEY)",
      ]);
    }
  });

  it("wants both Upstash settings or neither", () => {
    expect(problems({ UPSTASH_REDIS_REST_URL: "https://x.upstash.io" })[0]).toMatch(/together/);
  });

  it("takes RATE_LIMIT_PREFIX as a Redis key prefix, or leaves it to be derived from the issuer", () => {
    expect(parseEnv({}).rateLimitPrefix).toBeUndefined();
    expect(parseEnv({ RATE_LIMIT_PREFIX: "staging-eu:1" }).rateLimitPrefix).toBe("staging-eu:1");
    for (const bad of ["has space", ":starts-with-colon", "a{hash}", "x".repeat(65)]) {
      expect(problems({ RATE_LIMIT_PREFIX: bad })[0], bad).toMatch(/^RATE_LIMIT_PREFIX: must be/);
    }
  });

  it("treats blank values as unset", () => {
    expect(parseEnv({ ISSUER: "  ", SECRET_KEY: "" }).issuer).toBe("http://localhost:3000");
  });
});

/** What a production build reads when nobody configured anything (`npm run build && npm start`). */
const bareProductionBuild = { NODE_ENV: "production" };

/** An application key as `openssl genrsa` writes it on OpenSSL 1.1 and LibreSSL: PKCS#1. */
const pkcs1Key = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
}).privateKey;

/** A production build behind a tunnel: complete, except that the issuer is loopback and the secret is the published one. */
const tunnelled = {
  NODE_ENV: "production",
  ISSUER: "http://localhost:3000",
  DATABASE_URL: "postgresql://u:p@db.example.com:5432/bank",
  REDIS_URL: "redis://cache.example.com:6379",
  RESEND_API_KEY: "re_123",
  UPSTREAM: "enablebanking",
  ENABLE_BANKING_APPLICATION_ID: "app",
  ENABLE_BANKING_PRIVATE_KEY: pkcs1Key,
};

describe("production mode: a production build refuses development secrets and demo defaults", () => {
  it("refuses the development SECRET_KEY in a production build on a loopback issuer", () => {
    const found = problems(tunnelled);
    expect(found.some((p) => p.startsWith("SECRET_KEY"))).toBe(true);
    expect(found.some((p) => p.startsWith("ISSUER") && p.includes("loopback"))).toBe(true);
  });

  it("is production mode whatever the issuer's host once NODE_ENV=production", () => {
    const env = parseEnv({ ...tunnelled, ...production, ISSUER: "https://connect.example.com" });
    expect(env.mode).toBe("production");
    expect(refusal({ ...tunnelled, SECRET_KEY: production.SECRET_KEY })?.problems).toEqual([
      "ISSUER must be the service's public https:// address in production (http://localhost:3000 is a loopback address)",
    ]);
  });

  it("refuses each development default of a bare production build, naming each setting", () => {
    const found = problems(bareProductionBuild);
    const expected = {
      ISSUER: /loopback address/,
      SECRET_KEY: /published in the source/,
      DATABASE_URL: /embedded PostgreSQL/,
      "REDIS_URL or UPSTASH_REDIS_REST_URL/TOKEN": /in-memory rate limits/,
      RESEND_API_KEY: /local outbox/,
      UPSTREAM: /explicitly/,
    };
    expect(found).toHaveLength(Object.keys(expected).length);
    for (const [name, why] of Object.entries(expected)) {
      const problem = found.find((p) => p.startsWith(`${name} `));
      expect(problem, name).toMatch(why);
    }
  });

  it("says in one message why production mode applies and how to run locally (LOCAL_ONLY=true)", () => {
    const message = refusal(bareProductionBuild)?.message ?? "";
    expect(message).toMatch(/^Invalid configuration:\n {2}- ISSUER/);
    expect(message).toContain("NODE_ENV=production");
    expect(message).toContain("set LOCAL_ONLY=true");
    expect(message).toContain("docs/production.md");
  });

  it("does not offer LOCAL_ONLY when the issuer is public", () => {
    const message = refusal({ ISSUER: "https://connect.example.com" })?.message ?? "";
    expect(message).toContain("is a public address");
    expect(message).not.toContain("LOCAL_ONLY");
  });

  it("refuses the in-memory rate-limit store in production", () => {
    const found = problems({ ...production, REDIS_URL: "" });
    expect(found).toEqual([
      expect.stringMatching(/^REDIS_URL or UPSTASH_REDIS_REST_URL\/TOKEN is required/),
    ]);
    expect(
      problems({
        ...production,
        REDIS_URL: "",
        UPSTASH_REDIS_REST_URL: "https://x.upstash.io",
        UPSTASH_REDIS_REST_TOKEN: "t",
      }),
    ).toEqual([]);
  });

  it("refuses the local outbox in production: no mail provider, no start, and no outbox mailer", () => {
    expect(problems({ ...production, RESEND_API_KEY: "" })).toEqual([
      expect.stringMatching(/^RESEND_API_KEY or SMTP_URL\/SMTP_HOST is required in production/),
    ]);
    const env = parseEnv({ ...production, NODE_ENV: "production" });
    expect(() => createMailer({ ...env, resendApiKey: undefined })).toThrow(/RESEND_API_KEY/);
  });

  it("accepts an SMTP relay as the production mail provider, STARTTLS required unless told otherwise", () => {
    const viaUrl = parseEnv({
      ...production,
      RESEND_API_KEY: "",
      SMTP_URL: "smtp://mailer%40example.com:p%3Ass@smtp.example.com:2525",
    });
    expect(viaUrl.smtp).toEqual({
      host: "smtp.example.com",
      port: 2525,
      secure: false,
      requireTls: true,
      auth: { user: "mailer@example.com", pass: "p:ss" },
    });
    expect(createMailer(viaUrl).name).toBe("smtp");
    const viaParts = parseEnv({
      ...production,
      RESEND_API_KEY: "",
      SMTP_HOST: "smtp.example.com",
      SMTP_SECURE: "true",
      SMTP_USER: "u",
      SMTP_PASSWORD: "p",
    });
    expect(viaParts.smtp).toMatchObject({
      port: 465,
      secure: true,
      auth: { user: "u", pass: "p" },
    });
    expect(parseEnv({ SMTP_URL: "smtp://127.0.0.1:1025" }).smtp).toEqual({
      host: "127.0.0.1",
      port: 1025,
      secure: false,
      requireTls: false,
      auth: undefined,
    });
    expect(
      parseEnv({ ...production, RESEND_API_KEY: "", SMTP_URL: "smtps://h.example" }).smtp,
    ).toMatchObject({ port: 465, secure: true });
  });

  it("names conflicting or incomplete mail settings", () => {
    expect(problems({ SMTP_URL: "http://smtp.example.com" })[0]).toMatch(/^SMTP_URL/);
    expect(problems({ SMTP_URL: "smtp://a.example", SMTP_HOST: "b.example" })).toEqual([
      expect.stringMatching(/alternatives: set one/),
    ]);
    expect(problems({ SMTP_USER: "u" })).toEqual([expect.stringMatching(/^SMTP_HOST is required/)]);
    expect(problems({ ...production, SMTP_HOST: "smtp.example.com" })).toEqual([
      expect.stringMatching(/choose one mail provider/),
    ]);
  });

  it("refuses an implicit sandbox upstream in production; an explicit choice is accepted", () => {
    expect(problems({ ...production, UPSTREAM: "" })).toEqual([
      expect.stringMatching(/^UPSTREAM must be chosen explicitly/),
    ]);
    expect(parseEnv({ ...production, NODE_ENV: "production" }).upstream).toBe("sandbox");
  });

  it("keeps the demo off by default in production; DEMO_ENABLED=true turns it on", () => {
    expect(parseEnv({ ...production, NODE_ENV: "production" }).demoEnabled).toBe(false);
    expect(parseEnv({ ...production, DEMO_ENABLED: "true" }).demoEnabled).toBe(true);
  });

  it("lets partners sign themselves up locally; production leaves it to the operator unless PARTNER_SELF_SIGNUP=true", () => {
    expect(parseEnv({}).partnerSelfSignup).toBe(true);
    expect(parseEnv({ PARTNER_SELF_SIGNUP: "false" }).partnerSelfSignup).toBe(false);
    expect(parseEnv({ NODE_ENV: "production", LOCAL_ONLY: "true" }).partnerSelfSignup).toBe(true);
    expect(parseEnv({ ...production, NODE_ENV: "production" }).partnerSelfSignup).toBe(false);
    expect(parseEnv({ ...production, PARTNER_SELF_SIGNUP: "yes" }).partnerSelfSignup).toBe(true);
  });

  it("LOCAL_ONLY=true lets a production build use the development defaults on a loopback issuer", () => {
    const env = parseEnv({ NODE_ENV: "production", LOCAL_ONLY: "true" });
    expect(env.mode).toBe("local");
    expect(env.localOnly).toBe(true);
    expect(env.secretKey).toBe(DEVELOPMENT_SECRET);
    expect(env.demoEnabled).toBe(true);
    expect(createMailer(env).name).toBe("outbox");
    expect(
      parseEnv({ NODE_ENV: "production", LOCAL_ONLY: "true", ISSUER: "http://127.0.0.1:4100" })
        .mode,
    ).toBe("local");
  });

  it("accepts LOCAL_ONLY=true only with a loopback issuer", () => {
    const found = problems({ ...production, NODE_ENV: "production", LOCAL_ONLY: "true" });
    expect(found).toEqual([
      "LOCAL_ONLY=true is accepted only with a loopback ISSUER (such as http://localhost:3000); https://connect.example.com is not one",
    ]);
    expect(problems({ LOCAL_ONLY: "true", ISSUER: "http://connect.example.com" })[0]).toMatch(
      /^LOCAL_ONLY=true/,
    );
  });

  it("takes as loopback only IP literals in 127.0.0.0/8, [::1] and localhost, never a name that looks like one", () => {
    for (const issuer of [
      "http://localhost:3000",
      "http://127.0.0.1:4100",
      "http://127.8.9.10",
      "http://127.1:3000",
      "http://0x7f000001",
      "http://[::1]:3000",
      "http://[0:0:0:0:0:0:0:1]",
    ]) {
      expect(isLoopbackUrl(issuer), issuer).toBe(true);
      expect(parseEnv({ NODE_ENV: "production", LOCAL_ONLY: "true", ISSUER: issuer }).mode).toBe(
        "local",
      );
    }
    for (const issuer of [
      "http://127.evil.example",
      "http://127.0.0.1.evil.example",
      "http://127.0.0.1.nip.io:3000",
      "http://localhost.evil.example",
      "http://app.localhost:3000",
      "http://128.0.0.1",
      "http://[::2]",
      "http://[::ffff:127.0.0.1]",
    ]) {
      expect(isLoopbackUrl(issuer), issuer).toBe(false);
      expect(
        problems({ NODE_ENV: "production", LOCAL_ONLY: "true", ISSUER: issuer }),
        issuer,
      ).toContain(
        `LOCAL_ONLY=true is accepted only with a loopback ISSUER (such as http://localhost:3000); ${issuer} is not one`,
      );
      // Even under `npm run dev`, such an issuer is public: production mode.
      expect(problems({ NODE_ENV: "development", ISSUER: issuer }).join("\n"), issuer).toMatch(
        /^SECRET_KEY must be set/m,
      );
    }
  });

  it("refuses a SECRET_KEY of obviously low entropy in production, naming the setting and never the value", () => {
    const weak = {
      ["a".repeat(32)]: "it is one character repeated",
      ["ab".repeat(20)]: "it repeats a pattern of 2 characters",
      ["0123456789".repeat(4)]: "it repeats a pattern of 10 characters",
      ["correct-horse-".repeat(3)]: "it repeats a pattern of 14 characters",
      fadebcbfaecdfbadcebfdacebfadcebd: "it has only 6 different characters",
      abcdefghijklmnopqrstuvwxyz012345: "it runs through a sequence",
      ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvu: "it runs through a sequence",
    };
    for (const [secret, why] of Object.entries(weak)) {
      expect(weakSecretReason(secret), secret).toBe(why);
      const found = refusal({ ...production, SECRET_KEY: secret });
      expect(found?.problems, secret).toEqual([
        `SECRET_KEY is too easy to guess for production (${why}): use at least 32 random characters, such as the output of \`openssl rand -base64 48\``,
      ]);
      expect(found?.message).not.toContain(secret);
      // Local mode keeps accepting it: the rule guards production.
      expect(parseEnv({ SECRET_KEY: secret }).secretKey).toBe(secret);
    }
  });

  it("accepts random secrets and the repository's own production-mode secrets", () => {
    const accepted = [
      production.SECRET_KEY,
      // scripts/lib/seed.test.ts and compose.yaml.
      "a-production-secret-key-of-at-least-32-chars",
      "change-me-to-48-random-characters-openssl-rand-base64",
      ...Array.from({ length: 200 }, () => randomBytes(48).toString("base64")),
      ...Array.from({ length: 200 }, () => randomBytes(16).toString("hex")),
      ...Array.from({ length: 200 }, () => randomBytes(32).toString("base64url")),
    ];
    for (const secret of accepted) {
      expect(weakSecretReason(secret), secret).toBeNull();
      expect(problems({ ...production, SECRET_KEY: secret }), secret).toEqual([]);
    }
    // The previous secret of a rotation may be the weak one being retired.
    expect(problems({ ...production, SECRET_KEY_PREVIOUS: "a".repeat(32) })).toEqual([]);
  });

  it("LOCAL_ONLY=false is a production build like no setting at all", () => {
    expect(problems({ NODE_ENV: "production", LOCAL_ONLY: "false" })).toEqual(
      problems(bareProductionBuild),
    );
  });

  it("development and tests on a loopback issuer need nothing", () => {
    expect(parseEnv({ NODE_ENV: "development" }).mode).toBe("local");
    expect(parseEnv({ NODE_ENV: "test" }).mode).toBe("local");
  });
});

describe("build and start stages", () => {
  it("checks only each setting's form at build, so a build machine needs no runtime secrets", () => {
    expect(parseEnv(bareProductionBuild, "build").mode).toBe("production");
    expect(problems({ NODE_ENV: "production", PORT: "x" }, "build")[0]).toMatch(/^PORT/);
    expect(problems({ NODE_ENV: "production", LOCAL_ONLY: "maybe" }, "build")[0]).toMatch(
      /^LOCAL_ONLY/,
    );
  });

  it("takes the build stage from Next's phase, in next.config.ts and in the build's workers", () => {
    expect(stageOfNextPhase("phase-production-build")).toBe("build");
    expect(stageOfNextPhase("phase-production-server")).toBe("start");
    expect(stageOfNextPhase("phase-development-server")).toBe("start");
    expect(() =>
      parseEnv({ ...bareProductionBuild, NEXT_PHASE: "phase-production-build" }),
    ).not.toThrow();
    expect(() =>
      parseEnv({ ...bareProductionBuild, NEXT_PHASE: "phase-production-server" }),
    ).toThrow(EnvError);
  });

  it("checks everything at start", () => {
    expect(problems(bareProductionBuild, "start").length).toBeGreaterThan(0);
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
