import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { childEnv, EnvError, getEnv } from "../lib/env";
import { resolveDatabase, REPO_ROOT, type ResolvedDatabase } from "./lib/database";
import { applyMigrations } from "./lib/migrations";
import { seedDemo } from "./lib/seed";
import { disconnectDb } from "../lib/db/client";

/**
 * `npm run dev` / `npm start`: one command from a fresh clone to a running
 * service. Starts the embedded PostgreSQL when DATABASE_URL is unset, applies
 * migrations, seeds the demo partner, runs Next, and on Ctrl-C / SIGTERM stops
 * Next first and PostgreSQL second, so nothing is left running.
 */

type Mode = "dev" | "start";

const log = (line: string) => console.log(`[bank-connect] ${line}`);

function parseMode(argv: string[]): Mode {
  const mode = argv[2];
  if (mode !== "dev" && mode !== "start") {
    console.error("usage: tsx scripts/launch.ts dev|start");
    process.exit(2);
  }
  return mode;
}

function startNext(mode: Mode, port: number, databaseUrl: string): ChildProcess {
  const nextBin = path.join(REPO_ROOT, "node_modules", "next", "dist", "bin", "next");
  return spawn(process.execPath, [nextBin, mode, "--port", String(port)], {
    cwd: REPO_ROOT,
    stdio: "inherit",
    env: childEnv({
      DATABASE_URL: databaseUrl,
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
    }),
  });
}

async function waitUntilServing(url: string, child: ChildProcess, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.exitCode === null) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (response.ok) return true;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}

function printBanner(issuer: string, demo: Awaited<ReturnType<typeof seedDemo>>) {
  const lines = [
    "",
    `Bank Connect is running at ${issuer}`,
    "",
    `  Home                ${issuer}/`,
    `  Server metadata     ${issuer}/.well-known/oauth-authorization-server`,
    `  Health              ${issuer}/healthz`,
    "",
    "  Demo partner client (Demo Budget App)",
    `    client_id         ${demo.clientId}`,
    `    client_secret     ${demo.clientSecret}`,
    `    redirect_uri      ${demo.redirectUri}`,
    "",
    "Press Ctrl-C to stop.",
    "",
  ];
  console.log(lines.join("\n"));
}

async function main() {
  const mode = parseMode(process.argv);
  let env;
  try {
    env = getEnv();
  } catch (error) {
    console.error(error instanceof EnvError ? error.message : error);
    process.exit(1);
  }
  if (mode === "start" && !existsSync(path.join(REPO_ROOT, ".next", "BUILD_ID"))) {
    console.error("No production build found: run `npm run build` first.");
    process.exit(1);
  }

  let database: ResolvedDatabase | undefined;
  let next: ChildProcess | undefined;
  let stopping = false;

  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    if (next && next.exitCode === null) {
      const exited = new Promise((resolve) => next?.once("exit", resolve));
      next.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (next.exitCode === null) next.kill("SIGKILL");
    }
    await disconnectDb().catch(() => undefined);
    if (database?.embedded) {
      log("stopping the embedded PostgreSQL");
      await database.embedded.stop();
    }
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(130));
  process.on("SIGTERM", () => void stop(143));

  try {
    database = await resolveDatabase(log);
    const { applied } = await applyMigrations({ databaseUrl: database.url });
    log(applied.length ? `applied migrations: ${applied.join(", ")}` : "database schema is up to date");
    const demo = await seedDemo();
    await disconnectDb();

    next = startNext(mode, env.port, database.url);
    next.on("exit", (code) => void stop(code ?? 1));
    if (await waitUntilServing(`http://127.0.0.1:${env.port}/healthz`, next, 180_000)) {
      printBanner(env.issuer, demo);
    }
  } catch (error) {
    console.error(`[bank-connect] could not start: ${error instanceof Error ? error.message : String(error)}`);
    await stop(1);
  }
}

void main();
