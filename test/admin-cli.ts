import { execFile } from "node:child_process";
import path from "node:path";
import { expect, vi } from "vitest";
import { childEnv, getEnv } from "../lib/env";

/** The admin CLI as an operator runs it: a child process against the test database. */

/**
 * Each run starts a process that loads the CLI and its database client: a
 * second on a quiet machine, ten or more on a busy one. A test file that runs
 * the CLI gets this much per test instead of the default, so that a slow
 * machine fails nothing (a hang still fails, later).
 */
const ADMIN_TEST_TIMEOUT_MS = 180_000;
vi.setConfig({ testTimeout: ADMIN_TEST_TIMEOUT_MS });

const REPO_ROOT = path.resolve(import.meta.dirname, "..");

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function admin(...args: string[]): Promise<AdminRun> {
  return adminWith({}, ...args);
}

/** A run with these settings added to the environment. */
export function adminWith(settings: Record<string, string>, ...args: string[]): Promise<AdminRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/admin.ts", ...args],
      {
        cwd: REPO_ROOT,
        env: childEnv({ DATABASE_URL: getEnv().databaseUrl, ...settings }),
        timeout: ADMIN_TEST_TIMEOUT_MS - 10_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A successful run's JSON. */
export function adminJson<T = Record<string, unknown>>(run: AdminRun): T {
  expect(run.stderr).toBe("");
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as T;
}

/** A refusal: the exit code, nothing on stdout, one `admin:` line and never a stack trace. */
export function expectAdminRefusal(run: AdminRun, code: 1 | 2, message: string | RegExp): void {
  expect(run.code).toBe(code);
  expect(run.stdout).toBe("");
  const [first] = run.stderr.split("\n");
  expect(first).toMatch(/^admin: /);
  if (typeof message === "string") expect(first).toContain(message);
  else expect(first).toMatch(message);
  expect(run.stderr).not.toMatch(/^\s+at /m);
}
