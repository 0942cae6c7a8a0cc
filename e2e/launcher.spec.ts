import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { childEnv } from "../lib/env";
import pg from "pg";
import { findFreePort, findRunningEmbeddedUrl } from "../scripts/lib/embedded-postgres";

/**
 * `npm start` from a clean data directory (Issue: foundation acceptance):
 * serves the discovery document, stops PostgreSQL with it on SIGTERM and on
 * Ctrl-C (SIGINT), and keeps its data across restarts. Uses the production
 * build the journeys' server made; the data lives in a directory of its own.
 */
test.describe.configure({ timeout: 240_000 });

const ROOT = path.resolve(import.meta.dirname, "..");
const DATA_DIR = path.join(ROOT, ".data", `launcher-test-${process.pid}`);

function launch(port: number): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "scripts/launch.ts", "start"], {
    cwd: ROOT,
    stdio: "pipe",
    env: childEnv({
      NODE_ENV: "production",
      // A local production build: the README's `LOCAL_ONLY=true npm start`.
      LOCAL_ONLY: "true",
      DATABASE_URL: undefined,
      REDIS_URL: undefined,
      DATA_DIR: DATA_DIR,
      PORT: String(port),
      ISSUER: `http://localhost:${port}`,
    }),
  });
}

async function untilServing(url: string, child: ChildProcess): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 60_000) {
    expect(child.exitCode, "the launcher exited early").toBeNull();
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer within 60 s`);
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.kill(signal);
  });
}

function postmasterAlive(): boolean {
  const pidFile = path.join(DATA_DIR, "postgres", "postmaster.pid");
  if (!existsSync(pidFile)) return false;
  const pid = Number.parseInt(readFileSync(pidFile, "utf8").split("\n")[0] ?? "", 10);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function postgresProcessesFor(directory: string): string {
  try {
    return execFileSync("pgrep", ["-af", directory], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
}

async function countFlows(): Promise<number> {
  const url = await findRunningEmbeddedUrl(path.join(DATA_DIR, "postgres"), "bank_connect");
  const client = new pg.Client({ connectionString: url ?? "" });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>('SELECT count(*) FROM "Flow"');
    return Number(result.rows[0]?.count);
  } finally {
    await client.end();
  }
}

test.afterAll(() => rmSync(DATA_DIR, { recursive: true, force: true }));

test("LOCAL_ONLY=true npm start runs on an embedded PostgreSQL, stops it cleanly and keeps its data", async () => {
  const port = await findFreePort();
  const origin = `http://localhost:${port}`;

  const first = launch(port);
  await untilServing(`${origin}/.well-known/oauth-authorization-server`, first);
  const discovery = (await (
    await fetch(`${origin}/.well-known/oauth-authorization-server`)
  ).json()) as { issuer: string };
  expect(discovery.issuer).toBe(origin);
  // Something to find again after the restart: a flow row written through the service.
  const authorize = `${origin}/oauth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: "obc_demo_budget_app",
    redirect_uri: `${origin}/demo/callback`,
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
  })}`;
  expect((await fetch(authorize, { redirect: "manual" })).status).toBe(303);
  expect(await countFlows()).toBe(1);

  expect(await stop(first, "SIGTERM")).not.toBeNull();
  expect(postmasterAlive()).toBe(false);
  expect(postgresProcessesFor(path.join(DATA_DIR, "postgres"))).toBe("");

  const second = launch(port);
  await untilServing(`${origin}/healthz`, second);
  // The seeded demo client is still there (seeding again did not duplicate or break it).
  expect((await fetch(authorize, { redirect: "manual" })).status).toBe(303);
  // The flow written before the restart is still there, next to the new one.
  expect(await countFlows()).toBe(2);
  // The admin CLI works alongside the running service, on the same cluster.
  const listing = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ["--import", "tsx", "scripts/admin.ts", "partner", "list"],
      { cwd: ROOT, env: childEnv({ DATABASE_URL: undefined, DATA_DIR }) },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    ),
  );
  expect(listing).toContain("Demo Budget App");

  expect(await stop(second, "SIGINT")).not.toBeNull();
  expect(postmasterAlive()).toBe(false);
  expect(postgresProcessesFor(path.join(DATA_DIR, "postgres"))).toBe("");
});
