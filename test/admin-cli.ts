import { execFile } from "node:child_process";
import path from "node:path";
import { expect } from "vitest";
import { childEnv, getEnv } from "../lib/env";

/** The admin CLI as an operator runs it: a child process against the test database. */

const REPO_ROOT = path.resolve(import.meta.dirname, "..");

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function admin(...args: string[]): Promise<AdminRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/admin.ts", ...args],
      { cwd: REPO_ROOT, env: childEnv({ DATABASE_URL: getEnv().databaseUrl }), timeout: 60_000 },
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
export function expectAdminRefusal(run: AdminRun, code: 1 | 2, message: string): void {
  expect(run.code).toBe(code);
  expect(run.stdout).toBe("");
  const [first] = run.stderr.split("\n");
  expect(first).toMatch(/^admin: /);
  expect(first).toContain(message);
  expect(run.stderr).not.toMatch(/^\s+at /m);
}
