import { execFile } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  machineProbe,
  missingRequirements,
  prerequisiteMessage,
  REQUIREMENTS,
} from "./prerequisites.mjs";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "..");
const script = path.join(root, "scripts", "prerequisites.mjs");
const ALL_PACKAGES = "chromium redis-server openssl nginx util-linux make g++ python3";

/** A directory holding only a link to this Node: a PATH on which none of the tools is. */
function pathWithOnlyNode(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "prerequisites-"));
  symlinkSync(process.execPath, path.join(dir, "node"));
  return dir;
}

/** Runs the check as `npm test` does, in an environment made only of `env`. */
async function check(env: Record<string, string>, args: string[] = []) {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], {
      env: { NODE_ENV: "test", ...env },
      cwd: root,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const canRun = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

describe("the prerequisite check that npm test runs first", () => {
  it("stops with one message naming every missing tool and the one command that installs them", async () => {
    const bin = pathWithOnlyNode();
    const result = await check({ PATH: bin, HOME: bin, CHROMIUM_PATH: path.join(bin, "chromium") });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    for (const tool of [
      "Chromium",
      "redis-server",
      "openssl",
      "setpriv",
      "make",
      "g++",
      "python3",
    ]) {
      expect(result.stderr).toContain(`  - ${tool} (Debian package `);
    }
    // nginx is looked for at the path the cluster run starts, whatever PATH says.
    expect(result.stderr.includes("  - nginx (")).toBe(!existsSync("/usr/sbin/nginx"));
    const packages = ALL_PACKAGES.split(" ")
      .filter((name) => name !== "nginx" || !existsSync("/usr/sbin/nginx"))
      .join(" ");
    const install = result.stderr.split("\n").filter((line) => line.includes("apt-get install"));
    expect(install).toEqual([
      `  ${process.getuid?.() === 0 ? "" : "sudo "}apt-get install -y ${packages}`,
    ]);
    expect(result.stderr).toContain("Or run `bash .ci/run`");
    expect(result.stderr).toContain("then run npm install again");
    expect(result.stderr.match(/npm test cannot start/g)).toHaveLength(1);
  });

  it("prints the missing Debian packages for .ci/run to install", async () => {
    const bin = pathWithOnlyNode();
    const result = await check(
      { PATH: bin, HOME: bin, CHROMIUM_PATH: path.join(bin, "chromium") },
      ["--missing-packages"],
    );
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split(" ")).toEqual(
      expect.arrayContaining([
        "chromium",
        "redis-server",
        "openssl",
        "util-linux",
        "make",
        "g++",
        "python3",
      ]),
    );
  });

  it("names all of it, nginx included, and uses sudo unless run as root", () => {
    const probe = machineProbe({
      env: { PATH: "/nowhere" },
      isFile: () => false,
      root: "/nowhere",
    });
    const missing = missingRequirements(probe);
    expect(missing.map((need) => need.package).join(" ")).toBe(ALL_PACKAGES);
    const message = prerequisiteMessage({ missing, nodeVersion: "20.20.2", asRoot: false }) ?? "";
    expect(message).toContain(`\n  sudo apt-get install -y ${ALL_PACKAGES}\n`);
    expect(message).toContain("  - nginx (Debian package nginx): the cluster run's proxy");
    expect(prerequisiteMessage({ missing, nodeVersion: "20.20.2", asRoot: true })).toContain(
      `\n  apt-get install -y ${ALL_PACKAGES}\n`,
    );
  });

  it("passes when every tool is present", async () => {
    const bin = pathWithOnlyNode();
    for (const need of REQUIREMENTS.filter((need) => need.command)) {
      writeFileSync(path.join(bin, need.command ?? ""), "#!/bin/sh\n", { mode: 0o755 });
    }
    const chromium = path.join(bin, "chromium-browser");
    writeFileSync(chromium, "#!/bin/sh\n", { mode: 0o755 });
    const probe = machineProbe({
      env: { PATH: bin, CHROMIUM_PATH: chromium },
      isFile: (file) => file === "/usr/sbin/nginx" || canRun(file),
    });
    expect(missingRequirements(probe)).toEqual([]);
    expect(prerequisiteMessage({ missing: [], nodeVersion: "20.9.0", asRoot: false })).toBeNull();
  });

  it("refuses a Node older than the project supports", () => {
    const message = prerequisiteMessage({ missing: [], nodeVersion: "18.19.0", asRoot: false });
    expect(message).toContain("  - Node 20.9 or later (this is Node 18.19.0): every layer");
    expect(prerequisiteMessage({ missing: [], nodeVersion: "22.1.0", asRoot: false })).toBeNull();
  });

  it("runs before every layer of npm test, and .ci/run installs from the same list", () => {
    const scripts = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts;
    expect(scripts.test).toMatch(/^node scripts\/prerequisites\.mjs && npm run lint && /);
    const ci = readFileSync(path.join(root, ".ci", "run"), "utf8");
    expect(ci).toContain("node scripts/prerequisites.mjs --missing-packages");
    expect(ci).not.toMatch(/missing\+=/);
  });
});
