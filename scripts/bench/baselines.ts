import { spawn, type ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { childEnv } from "../../lib/env";
import { dataDir, NEXT_BIN, REPO_ROOT, TSX_CLI } from "../lib/database";
import { findFreePort } from "../lib/embedded-postgres";
import { sleep } from "../lib/load-client";

/**
 * The two baselines every measurement is set against, each in a process of
 * its own on this machine: a bare Node HTTP server answering the service's
 * own JSON bytes per path, and the smallest Next.js application (one route
 * handler returning a constant), built and started with `next start`.
 */

export interface Baseline {
  origin: string;
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
  return { origin, stop: stopper(child) };
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
  return { origin, stop: stopper(child) };
}
