#!/usr/bin/env node
/**
 * What `npm test`'s layers need beyond Node and `npm install` (docs/testing.md):
 * checked before any layer runs, so a machine that lacks something learns all
 * of it at once, with the one command that installs it. `.ci/run` installs
 * what `--missing-packages` prints, so the two share this one list.
 *
 *   node scripts/prerequisites.mjs                     exit 1 with one message when something is missing
 *   node scripts/prerequisites.mjs --missing-packages  the missing Debian packages, space-separated
 *
 * Plain Node with no dependencies: .ci/run calls it before `npm install`.
 */
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The oldest Node the project supports (package.json "engines"). */
export const MINIMUM_NODE = [20, 9];

/**
 * Each thing a layer needs: how it is found, the Debian package that provides
 * it and who needs it. `command` is looked up on PATH; `file` is an absolute
 * path the layer runs as it is.
 */
export const REQUIREMENTS = [
  {
    name: "Chromium",
    package: "chromium",
    otherwise: "or CHROMIUM_PATH, or npx playwright install chromium",
    neededBy: "the browser journeys (npm run test:e2e)",
    found: (probe) => probe.chromium(),
  },
  {
    name: "redis-server",
    package: "redis-server",
    neededBy: "the load run, the benchmarks and the cluster run",
    command: "redis-server",
  },
  {
    name: "openssl",
    package: "openssl",
    neededBy: "the unit tests (the logo-fetch tests' TLS certificates)",
    command: "openssl",
  },
  {
    name: "nginx",
    package: "nginx",
    neededBy: "the cluster run's proxy (it starts /usr/sbin/nginx itself)",
    file: "/usr/sbin/nginx",
  },
  {
    name: "setpriv",
    package: "util-linux",
    neededBy: "the image check's unprivileged start",
    command: "setpriv",
  },
  {
    name: "make",
    package: "make",
    neededBy: "npm install's build of the native key agreement (native/p256-agree)",
    command: "make",
  },
  {
    name: "g++",
    package: "g++",
    neededBy: "npm install's build of the native key agreement",
    command: "g++",
  },
  {
    name: "python3",
    package: "python3",
    neededBy: "npm install's build of the native key agreement (node-gyp)",
    command: "python3",
  },
];

/** Whether `file` exists and may be run. */
function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Playwright's own Chromium (`npx playwright install chromium`), for the version installed here. */
function playwrightChromium(root, env) {
  try {
    const manifest = path.join(root, "node_modules", "playwright-core", "browsers.json");
    const { browsers } = JSON.parse(readFileSync(manifest, "utf8"));
    const cache =
      env.PLAYWRIGHT_BROWSERS_PATH || path.join(env.HOME ?? "", ".cache", "ms-playwright");
    return browsers
      .filter((browser) => browser.name.startsWith("chromium"))
      .some((browser) =>
        existsSync(path.join(cache, `${browser.name.replaceAll("-", "_")}-${browser.revision}`)),
      );
  } catch {
    return false;
  }
}

/**
 * How things are found on this machine: `env` gives PATH and CHROMIUM_PATH,
 * `isFile` answers for absolute paths (the real file system unless a caller
 * says otherwise).
 */
export function machineProbe({ env, isFile = isExecutable, root = projectRoot() }) {
  const dirs = (env.PATH ?? "").split(path.delimiter).filter(Boolean);
  const command = (name) => dirs.some((dir) => isFile(path.join(dir, name)));
  return {
    command,
    file: (file) => isFile(file),
    // As the journeys choose (e2e/support/chromium.ts): CHROMIUM_PATH when set, else Debian's, else Playwright's.
    chromium: () =>
      env.CHROMIUM_PATH
        ? isFile(env.CHROMIUM_PATH)
        : isFile("/usr/bin/chromium") || command("chromium") || playwrightChromium(root, env),
  };
}

/** The requirements this machine lacks. */
export function missingRequirements(probe) {
  return REQUIREMENTS.filter((need) => {
    if (need.found) return !need.found(probe);
    if (need.command) return !probe.command(need.command);
    return !probe.file(need.file);
  });
}

/** Whether `version` ("20.20.2") is at least MINIMUM_NODE. */
export function nodeIsRecentEnough(version) {
  const [major, minor] = version.split(".").map(Number);
  return major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
}

/**
 * The one message for a machine that lacks something, or null when nothing is
 * missing. `asRoot`: apt-get needs no sudo.
 */
export function prerequisiteMessage({ missing, nodeVersion, asRoot }) {
  const oldNode = !nodeIsRecentEnough(nodeVersion);
  if (missing.length === 0 && !oldNode) return null;
  const lines = ["npm test cannot start: this machine lacks what its test layers need.", ""];
  if (oldNode) {
    lines.push(
      `  - Node ${MINIMUM_NODE.join(".")} or later (this is Node ${nodeVersion}): every layer`,
    );
  }
  for (const need of missing) {
    const from = [`Debian package ${need.package}`, need.otherwise].filter(Boolean).join(", ");
    lines.push(`  - ${need.name} (${from}): ${need.neededBy}`);
  }
  if (missing.length > 0) {
    const packages = [...new Set(missing.map((need) => need.package))].join(" ");
    lines.push("", "Install all of it with one command (Debian, Ubuntu):", "");
    lines.push(`  ${asRoot ? "" : "sudo "}apt-get install -y ${packages}`);
    if (missing.some((need) => ["make", "g++", "python3"].includes(need.package))) {
      lines.push("", "then run npm install again, so that it builds the native key agreement.");
    }
    lines.push(
      "",
      "Or run `bash .ci/run`: it installs what is missing, starts a Redis and runs npm test.",
    );
  }
  if (oldNode)
    lines.push("", `Node: install ${MINIMUM_NODE.join(".")} or later from https://nodejs.org.`);
  lines.push("", "What each layer needs: docs/testing.md");
  return lines.join("\n");
}

function projectRoot() {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
}

function main(args) {
  // eslint-disable-next-line no-restricted-properties -- runs before npm install, where lib/env cannot load
  const missing = missingRequirements(machineProbe({ env: process.env }));
  if (args.includes("--missing-packages")) {
    process.stdout.write([...new Set(missing.map((need) => need.package))].join(" ") + "\n");
    return 0;
  }
  const message = prerequisiteMessage({
    missing,
    nodeVersion: process.versions.node,
    asRoot: process.getuid?.() === 0,
  });
  if (message === null) return 0;
  process.stderr.write(message + "\n");
  return 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
