import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { disconnectDb } from "../../lib/db/client";
import { childEnv, setSetting } from "../../lib/env";
import { NEXT_BIN, REPO_ROOT } from "../../scripts/lib/database";
import { serveNext, type RunningServer } from "../../scripts/lib/http-server";
import { seedDemo } from "../../scripts/lib/seed";
import { createTestDatabase } from "../../test/test-database";
import { publishDatabaseUrl } from "./database";
import { E2E_ORIGIN, E2E_PORT } from "./origin";
import { resetSecretsSeen, SERVER_LOG } from "./secrets-seen";

/**
 * The server behind the Playwright journeys: a fresh migrated and seeded
 * database, a production build, and the service's own HTTP server on the e2e
 * port. On SIGTERM (Playwright's teardown) it closes the server, drops the
 * database and stops the embedded PostgreSQL it started. Everything it prints
 * also goes to SERVER_LOG, which the last project scans for leaked secrets.
 * A production build for this machine only: LOCAL_ONLY=true, set here for the
 * build and the server alike (docs/production.md).
 */

/** Copies every write to stdout and stderr (the build's included) into `file`. */
function teeOutputTo(file: string) {
  // A fresh clone has no .data/ until the embedded PostgreSQL first starts.
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, "", { mode: 0o600 });
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const encoding = typeof rest[0] === "string" ? (rest[0] as BufferEncoding) : "utf8";
      appendFileSync(file, typeof chunk === "string" ? Buffer.from(chunk, encoding) : chunk);
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
}

function build(env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, [NEXT_BIN, "build"], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  // Through this process's streams, so the build's output is captured too.
  child.stdout.on("data", (chunk: Buffer) => process.stdout.write(chunk));
  child.stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
  return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

async function main() {
  teeOutputTo(SERVER_LOG);
  resetSecretsSeen();
  setSetting("LOCAL_ONLY", "true");
  setSetting("ISSUER", E2E_ORIGIN);
  // The webhook journey's receiver listens on this machine: a loopback ISSUER may allow it.
  setSetting("WEBHOOKS_ALLOW_LOOPBACK", "true");
  const database = await createTestDatabase("e2e");
  setSetting("DATABASE_URL", database.url);
  publishDatabaseUrl(database.url);

  let server: RunningServer | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await server?.close().catch(() => undefined);
    await disconnectDb().catch(() => undefined);
    await database.release();
    process.exit(code);
  };
  process.on("SIGTERM", () => void stop(0));
  process.on("SIGINT", () => void stop(0));

  try {
    await seedDemo();
    await disconnectDb();
    const built = await build(childEnv({ NEXT_TELEMETRY_DISABLED: "1", CHECKPOINT_DISABLE: "1" }));
    if (built !== 0) throw new Error(`next build failed (exit ${built})`);
    if (stopping) return;
    server = await serveNext({ dev: false, port: E2E_PORT, trustedProxyHops: 0 });
    console.log(`[e2e] serving ${E2E_ORIGIN}`);
  } catch (error) {
    console.error(error);
    await stop(1);
  }
}

void main();
