import { spawn, type ChildProcess } from "node:child_process";
import { createWriteStream, existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { disconnectDb } from "../../lib/db/client";
import { childEnv, setSetting } from "../../lib/env";
import { dataDir, distDir, NEXT_BIN, REPO_ROOT } from "./database";
import {
  ensureDatabase,
  findFreePort,
  startEmbeddedPostgres,
  type EmbeddedServer,
} from "./embedded-postgres";
import { applyMigrations } from "./migrations";

/**
 * The production service as a separate process, for the load, fault, fuzz
 * and benchmark runs: an embedded PostgreSQL of its own (kept on disk, so it
 * can be stopped and started again mid-run), a migrated database, the
 * production build (made when missing) and `npm start`'s launcher on a free
 * port. This process is pointed at the same database, so a run can set up
 * partners and users with the library and then speak to the service over
 * HTTP only. The service trusts one proxy hop: a run may give each simulated
 * client its own address in X-Forwarded-For, as a reverse proxy would. It is
 * a production build serving this machine only, so it says LOCAL_ONLY=true
 * (its embedded database and development secret are refused otherwise).
 */

export interface ServiceProcess {
  origin: string;
  /** The service's process id. */
  pid: number;
  databaseUrl: string;
  /** The service's stdout and stderr. */
  logFile: string;
  /** Milliseconds from spawning the launcher to its first 200 answer. */
  readyMs: number;
  /** Stops PostgreSQL (fast shutdown: open connections are cut). */
  stopDatabase(): Promise<void>;
  /** Starts the same cluster again on the same port. */
  startDatabase(): Promise<void>;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** Names the cluster, the database and the log file. */
  label: string;
  /** Extra settings for the service (REDIS_URL, UPSTREAM, LOG_LEVEL, …). */
  settings?: Record<string, string | undefined>;
  /** Build again even when a build exists (default: when the command line says `--build`). */
  rebuild?: boolean;
  /** Node flags for the service's process (`--cpu-prof`, which NODE_OPTIONS refuses). */
  nodeFlags?: string[];
  log?: (line: string) => void;
}

export function exitOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

/** The compiled launcher `npm run build` writes beside Next's build (scripts/build-launcher.mjs). */
export const launcherFile = () => path.join(REPO_ROOT, distDir(), "launcher", "launch.cjs");

/** `npm run build` (`next build`, then the launcher) unless a build is already there. */
export async function ensureBuild(
  rebuild: boolean,
  log: (line: string) => void = console.log,
): Promise<void> {
  const built = !rebuild && existsSync(path.join(REPO_ROOT, distDir(), "BUILD_ID"));
  if (!built) {
    log(`building the service into ${distDir()} (next build)`);
    await run([NEXT_BIN, "build"], "next build");
  }
  if (!built || !existsSync(launcherFile())) {
    await run([path.join("scripts", "build-launcher.mjs")], "the launcher's build");
  }
}

async function run(args: string[], name: string) {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    stdio: ["ignore", "inherit", "inherit"],
    env: childEnv({ NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1" }),
  });
  const code = await exitOf(child);
  if (code !== 0) throw new Error(`${name} failed (exit ${code})`);
}

async function waitForHealth(origin: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode})`);
    const healthy = await fetch(`${origin}/healthz`)
      .then((response) => response.ok)
      .catch(() => false);
    if (healthy) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the service did not become healthy within ${timeoutMs / 1000} s`);
}

export interface LauncherProcess {
  origin: string;
  port: number;
  pid: number;
  logFile: string;
  /** Milliseconds from spawning the launcher to its first 200 answer (polled every 100 ms). */
  readyMs: number;
  /** SIGTERM, then SIGKILL after 30 s. */
  stop(): Promise<void>;
}

export interface LauncherOptions {
  /** Names the log file. */
  label: string;
  databaseUrl: string;
  /** The public address (default: the process's own). */
  issuer?: string;
  /** Default: a free port. */
  port?: number;
  settings?: Record<string, string | undefined>;
  nodeFlags?: string[];
  /** Default 120 s. */
  healthTimeoutMs?: number;
}

/**
 * `npm start`'s launcher in a process of its own, on the production build,
 * healthy when this resolves. The launcher applies pending migrations before it
 * serves, as every start of the service does.
 */
export async function startLauncher(options: LauncherOptions): Promise<LauncherProcess> {
  const port = options.port ?? (await findFreePort());
  const origin = `http://localhost:${port}`;
  await mkdir(dataDir(), { recursive: true });
  const logFile = path.join(dataDir(), `${options.label}-server.log`);
  const logStream = createWriteStream(logFile);
  // As `npm start` runs it: the compiled launcher in plain Node, one process, with the run's own
  // node flags when it has any.
  const launcher = [...(options.nodeFlags ?? []), launcherFile(), "start"];
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, launcher, {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: childEnv({
      NODE_ENV: "production",
      LOCAL_ONLY: "true",
      NEXT_TELEMETRY_DISABLED: "1",
      CHECKPOINT_DISABLE: "1",
      DATABASE_URL: options.databaseUrl,
      ISSUER: options.issuer ?? origin,
      PORT: String(port),
      TRUSTED_PROXY_HOPS: "1",
      ...options.settings,
    }),
  });
  child.stdout?.pipe(logStream, { end: false });
  child.stderr?.pipe(logStream, { end: false });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = exitOf(child);
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      await exited;
      clearTimeout(timer);
    }
    logStream.end();
  };

  try {
    await waitForHealth(origin, child, options.healthTimeoutMs ?? 120_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}; see ${logFile}`, { cause: error });
  }
  const readyMs = performance.now() - spawnedAt;
  return { origin, port, pid: child.pid ?? 0, logFile, readyMs, stop };
}

export async function startService(options: ServiceOptions): Promise<ServiceProcess> {
  const log = options.log ?? ((line: string) => console.log(`[${options.label}] ${line}`));
  await ensureBuild(options.rebuild ?? process.argv.includes("--build"), log);

  const clusterDir = path.join(dataDir(), `${options.label}-postgres-${process.pid}`);
  await rm(clusterDir, { recursive: true, force: true });
  let postgres: EmbeddedServer | undefined = await startEmbeddedPostgres({
    dataDir: clusterDir,
    persistent: true,
  });
  const pgPort = postgres.port;
  const databaseName = `bank_connect_${options.label}`;
  await ensureDatabase(postgres.url("postgres"), databaseName);
  const databaseUrl = postgres.url(databaseName);
  await applyMigrations({ databaseUrl });
  setSetting("DATABASE_URL", databaseUrl);

  const port = await findFreePort();
  const origin = `http://localhost:${port}`;
  setSetting("ISSUER", origin);
  let service: LauncherProcess;
  try {
    service = await startLauncher({
      label: options.label,
      databaseUrl,
      port,
      settings: options.settings,
      nodeFlags: options.nodeFlags,
    });
  } catch (error) {
    await postgres.stop();
    throw error;
  }
  const { logFile } = service;
  log(`serving ${origin} (log: ${path.relative(REPO_ROOT, logFile)})`);

  return {
    origin,
    pid: service.pid,
    databaseUrl,
    logFile,
    readyMs: service.readyMs,
    async stopDatabase() {
      await postgres?.stop();
      postgres = undefined;
    },
    async startDatabase() {
      postgres ??= await startEmbeddedPostgres({
        dataDir: clusterDir,
        persistent: true,
        preferredPort: pgPort,
      });
      if (postgres.port !== pgPort) throw new Error(`PostgreSQL came back on another port`);
    },
    async stop() {
      await service.stop();
      await disconnectDb().catch(() => undefined);
      await postgres?.stop();
      await rm(clusterDir, { recursive: true, force: true });
      await rm(`${clusterDir}.json`, { force: true });
    },
  };
}
