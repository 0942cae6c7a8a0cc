import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { childEnv, setSetting } from "../../lib/env";
import { disconnectDb } from "../../lib/db/client";
import { REPO_ROOT } from "../../scripts/lib/database";
import { seedDemo } from "../../scripts/lib/seed";
import { createTestDatabase } from "../../test/test-database";
import { E2E_ORIGIN, E2E_PORT } from "./origin";

/**
 * The server behind the Playwright journeys: a fresh migrated and seeded
 * database, a production build, and `next start` on the e2e port. On SIGTERM
 * (Playwright's teardown) it stops Next, drops the database and stops the
 * embedded PostgreSQL it started.
 */

function run(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const nextBin = path.join(REPO_ROOT, "node_modules", "next", "dist", "bin", "next");
  return spawn(process.execPath, [nextBin, ...args], { cwd: REPO_ROOT, stdio: "inherit", env });
}

function finished(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code ?? 1)));
}

async function main() {
  setSetting("ISSUER", E2E_ORIGIN);
  const database = await createTestDatabase("e2e");
  setSetting("DATABASE_URL", database.url);
  await seedDemo();
  await disconnectDb();

  const env = childEnv({
    DATABASE_URL: database.url,
    ISSUER: E2E_ORIGIN,
    NEXT_TELEMETRY_DISABLED: "1",
    CHECKPOINT_DISABLE: "1",
  });

  let current: ChildProcess | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    if (current && current.exitCode === null) {
      current.kill("SIGTERM");
      await finished(current);
    }
    await database.release();
    process.exit(code);
  };
  process.on("SIGTERM", () => void stop(0));
  process.on("SIGINT", () => void stop(0));

  current = run(["build"], env);
  const built = await finished(current);
  if (built !== 0 || stopping) return stop(built || 1);

  current = run(["start", "--port", String(E2E_PORT)], env);
  const code = await finished(current);
  await stop(code);
}

void main();
