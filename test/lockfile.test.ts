import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * A fresh clone stays clean: `npm install` on any platform must find every
 * package it resolves already in package-lock.json, or it rewrites the file
 * and a newcomer's first `git status` shows a change they never made. The
 * platform builds (SWC, esbuild, sharp, …) are optional dependencies, so the
 * lock must list every one of them, not only this machine's. `.ci/run` also
 * checks that its own install leaves the file untouched.
 */

interface LockedPackage {
  version?: string;
  optional?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const root = path.resolve(__dirname, "..");
const lock = JSON.parse(readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
  lockfileVersion: number;
  packages: Record<string, LockedPackage>;
};
const manifest = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Where Node's resolution would find `name` from the package installed at `from`. */
function resolves(from: string, name: string): boolean {
  let dir = from;
  for (;;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return true;
    if (!dir) return false;
    const cut = dir.lastIndexOf("/node_modules/");
    dir = cut === -1 ? "" : dir.slice(0, cut);
  }
}

describe("package-lock.json", () => {
  it("lists every optional platform build of every locked package, not only this machine's", () => {
    const missing: string[] = [];
    for (const [location, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolves(location, name)) missing.push(`${location || "(root)"} → ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("locks every direct dependency at the exact version package.json pins", () => {
    const wanted = { ...manifest.dependencies, ...manifest.devDependencies };
    const drift = Object.entries(wanted)
      .filter(([name, version]) => lock.packages[`node_modules/${name}`]?.version !== version)
      .map(
        ([name, version]) =>
          `${name}: ${version} ≠ ${lock.packages[`node_modules/${name}`]?.version}`,
      );
    expect(lock.lockfileVersion).toBe(3);
    expect(drift).toEqual([]);
  });
});
