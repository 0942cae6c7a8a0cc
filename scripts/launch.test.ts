import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
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

function start(settings: Record<string, string | undefined>) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/launch.ts", "start"],
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
});
