import { spawn, type ChildProcess } from "node:child_process";
import { build } from "esbuild";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { childEnv } from "../../lib/env";
import { dataDir, NEXT_BIN, REPO_ROOT, TSX_CLI } from "../lib/database";
import { findFreePort } from "../lib/embedded-postgres";
import { sleep } from "../lib/load-client";

/**
 * The baselines the measurements are set against, each in a process of its
 * own on this machine: a bare Node HTTP server answering the service's own
 * JSON bytes per path; the smallest Next.js application (one route handler
 * returning a constant), built and started with `next start`; and, doing
 * the same work against the same PostgreSQL server, a bare Node + pg server
 * for the data reads and panva's oidc-provider for the token exchange. The
 * constant app and oidc-provider run as in production (NODE_ENV=production,
 * plain `node`); the two small bare servers run with tsx.
 */

export interface Baseline {
  origin: string;
  /** For its CPU time per request. */
  pid: number | undefined;
  stop(): Promise<void>;
}

const CONSTANT_APP = path.join(REPO_ROOT, "scripts", "bench", "constant-app");

async function waitForAnswer(origin: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 600; i += 1) {
    if (child.exitCode !== null) throw new Error(`baseline exited (${child.exitCode})`);
    const ok = await fetch(origin)
      .then(() => true)
      .catch(() => false);
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`baseline at ${origin} did not start`);
}

function stopper(child: ChildProcess) {
  return async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
}

export async function startBareBaseline(bodies: Record<string, string>): Promise<Baseline> {
  const file = path.join(dataDir(), "bench-bodies.json");
  await writeFile(file, JSON.stringify(bodies));
  const port = await findFreePort();
  const child = spawn(
    process.execPath,
    [TSX_CLI, "scripts/bench/bare-server.ts", file, String(port)],
    {
      cwd: REPO_ROOT,
      stdio: "ignore",
    },
  );
  const origin = `http://127.0.0.1:${port}`;
  await waitForAnswer(origin, child);
  return { origin, pid: child.pid, stop: stopper(child) };
}

/** A baseline started with tsx, which runs it in a child of its own: its pid is the tree's root. */
async function startScript(script: string, args: string[], env: Record<string, string> = {}) {
  const port = await findFreePort();
  const child = spawn(process.execPath, [TSX_CLI, script, String(port), ...args], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: childEnv(env),
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitForAnswer(origin, child);
  return { origin, pid: child.pid, stop: stopper(child) };
}

/** Node's http and a pg pool of the service's size, with hand-written SQL (bare-pg-server.ts). */
export function startBarePg(databaseUrl: string, poolSize: number, secretKey: string) {
  return startScript("scripts/bench/bare-pg-server.ts", [databaseUrl, String(poolSize)], {
    BENCH_SECRET_KEY: secretKey,
  });
}

/**
 * oidc-provider on a database of its own on the same server (oidc-provider/server.ts), run as
 * its documentation recommends for production: its server compiled to JavaScript beforehand
 * and started with plain `node` and NODE_ENV=production (no TypeScript loader in the process).
 */
export async function startOidcProvider(databaseUrl: string, poolSize: number) {
  // Under node_modules, so the compiled file finds the packages it leaves as imports.
  const compiled = path.join(REPO_ROOT, "node_modules", ".cache", "bench", "oidc-provider.mjs");
  await build({
    entryPoints: [path.join(REPO_ROOT, "scripts", "bench", "oidc-provider", "server.ts")],
    outfile: compiled,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: `node${process.versions.node}`,
    logLevel: "warning",
  });
  const port = await findFreePort();
  const child = spawn(process.execPath, [compiled, String(port), databaseUrl, String(poolSize)], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: childEnv({ NODE_ENV: "production" }),
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitForAnswer(origin, child);
  const baseline = { origin, pid: child.pid, stop: stopper(child) };
  return {
    ...baseline,
    async mint(count: number): Promise<{ code: string; verifier: string }[]> {
      const response = await fetch(`${baseline.origin}/__bench/mint?count=${count}`, {
        method: "POST",
      });
      if (!response.ok) throw new Error(`oidc-provider minted no codes: ${await response.text()}`);
      return (await response.json()) as { code: string; verifier: string }[];
    },
  };
}

export async function startConstantNext(log: (line: string) => void): Promise<Baseline> {
  const env = childEnv({
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    NEXT_DIST_DIR: undefined,
  });
  log("building the constant Next.js baseline");
  const build = spawn(process.execPath, [NEXT_BIN, "build", CONSTANT_APP], {
    cwd: REPO_ROOT,
    stdio: "ignore",
    env,
  });
  const built = await new Promise<number>((resolve) =>
    build.once("exit", (code) => resolve(code ?? 1)),
  );
  if (built !== 0) throw new Error(`the constant Next.js baseline did not build (exit ${built})`);
  const port = await findFreePort();
  const child = spawn(
    process.execPath,
    [NEXT_BIN, "start", CONSTANT_APP, "-p", String(port), "-H", "127.0.0.1"],
    {
      cwd: REPO_ROOT,
      stdio: "ignore",
      env,
    },
  );
  const origin = `http://127.0.0.1:${port}`;
  await waitForAnswer(`${origin}/constant`, child);
  return { origin, pid: child.pid, stop: stopper(child) };
}
