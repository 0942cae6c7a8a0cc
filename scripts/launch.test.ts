import { execFile, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { childEnv } from "../lib/env";

/** `npm start` as a developer types it on a fresh clone: a production build with no settings. */

const REPO_ROOT = path.resolve(import.meta.dirname, "..");

/** Every setting production mode looks at, unset, as on a machine nobody configured. */
const UNCONFIGURED = {
  NODE_ENV: "production",
  ISSUER: undefined,
  SECRET_KEY: undefined,
  DATABASE_URL: undefined,
  REDIS_URL: undefined,
  UPSTASH_REDIS_REST_URL: undefined,
  UPSTASH_REDIS_REST_TOKEN: undefined,
  RESEND_API_KEY: undefined,
  UPSTREAM: undefined,
  DEMO_ENABLED: undefined,
  LOCAL_ONLY: undefined,
  NEXT_PHASE: undefined,
  // A data directory that does not exist: a refused start must not create one.
  DATA_DIR: ".data/launch-refusal-never-created",
};

function start(
  settings: Record<string, string | undefined>,
  launcher = ["--import", "tsx", "scripts/launch.ts"],
) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...launcher, "start"],
      { cwd: REPO_ROOT, env: childEnv(settings), timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe("npm start", () => {
  it("refuses to start a production build on development defaults, naming each setting and LOCAL_ONLY", async () => {
    const run = await start(UNCONFIGURED);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    for (const name of [
      "ISSUER",
      "SECRET_KEY",
      "DATABASE_URL",
      "REDIS_URL",
      "RESEND_API_KEY",
      "UPSTREAM",
    ]) {
      expect(run.stderr, name).toMatch(new RegExp(`^ {2}- ${name} `, "m"));
    }
    expect(run.stderr).toContain("set LOCAL_ONLY=true");
    expect(run.stderr).not.toMatch(/^\s+at /m);
    expect(existsSync(path.join(REPO_ROOT, UNCONFIGURED.DATA_DIR))).toBe(false);
  });

  it("refuses LOCAL_ONLY=true on a public issuer", async () => {
    const run = await start({
      ...UNCONFIGURED,
      LOCAL_ONLY: "true",
      ISSUER: "https://connect.example.com",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^ {2}- LOCAL_ONLY=true is accepted only with a loopback ISSUER/m);
  });

  it("runs as `npm run build` compiles it, in plain Node: the same refusals, then no build found", async () => {
    // A build directory of this test's own, two levels below the checkout as `.next` is.
    const dist = `.next-launch-test-${process.pid}`;
    try {
      const build = spawnSync(process.execPath, ["scripts/build-launcher.mjs"], {
        cwd: REPO_ROOT,
        env: childEnv({ NEXT_DIST_DIR: dist }),
        encoding: "utf8",
      });
      expect(build.status, build.stderr).toBe(0);
      const compiled = [path.join(dist, "launcher", "launch.cjs")];
      const bundle = readFileSync(path.join(REPO_ROOT, compiled[0]!), "utf8");
      expect(bundle).not.toMatch(/require\("(tsx|esbuild)[/"]/);
      // An ES-module-only package used through its default export is compiled in: required,
      // its default would be the namespace (the aggregator client's retries failed so).
      expect(bundle).not.toMatch(/require\("p-retry"\)/);

      const refused = await start(UNCONFIGURED, compiled);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^ {2}- SECRET_KEY /m);
      expect(refused.stderr).toContain("set LOCAL_ONLY=true");

      const unbuilt = await start(
        {
          ...UNCONFIGURED,
          LOCAL_ONLY: "true",
          ISSUER: "http://localhost:3999",
          NEXT_DIST_DIR: dist,
        },
        compiled,
      );
      expect(unbuilt.stderr).toContain("No production build found: run `npm run build` first.");
      expect(unbuilt.code).toBe(1);
    } finally {
      rmSync(path.join(REPO_ROOT, dist), { recursive: true, force: true });
    }
  });
});
