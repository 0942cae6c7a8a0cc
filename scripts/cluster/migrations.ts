import { spawn } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import { childEnv } from "../../lib/env";
import { REPO_ROOT } from "../lib/database";
import { DEFAULT_MIGRATIONS_DIR } from "../lib/migrations";
import { readImageStart, type ImageStart } from "../image/dockerfile";
import { migrationRows } from "./cluster";
import type { ClusterContext } from "./types";

/**
 * (e) Migrations started by several processes at once are applied once: the
 * compose file's one-shot `migrate` command in the image's environment (read
 * from compose.yaml and the Dockerfile, so a change there is what runs here),
 * three at once on an empty database; and
 * the instances' own launchers, which apply pending migrations at every start
 * and were started at once on another empty database.
 */

type Check = ClusterContext["check"];

interface MigrateService {
  command: string[];
  environment: Record<string, string>;
}

/** The `migrate` service of compose.yaml: its command and environment. */
export async function composeMigrateService(): Promise<MigrateService> {
  const compose = parse(await readFile(path.join(REPO_ROOT, "compose.yaml"), "utf8")) as {
    services?: { migrate?: { command?: unknown; environment?: unknown } };
  };
  const { command, environment } = compose.services?.migrate ?? {};
  if (!Array.isArray(command) || !command.every((part) => typeof part === "string")) {
    throw new Error("compose.yaml has no migrate service with a command list");
  }
  if (typeof environment !== "object" || environment === null || Array.isArray(environment)) {
    throw new Error("compose.yaml's migrate service has no environment mapping");
  }
  return {
    command: command as string[],
    environment: Object.fromEntries(
      Object.entries(environment).map(([name, value]) => [name, String(value)]),
    ),
  };
}

/**
 * The compose file's command in the image's environment and the service's own,
 * with this run's database in place of the compose network's.
 */
function run(service: MigrateService, image: ImageStart, databaseUrl: string) {
  const [file = "", ...args] = service.command;
  const child = spawn(path.resolve(REPO_ROOT, file), args, {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: childEnv({
      ...image.environment,
      ...service.environment,
      DATABASE_URL: databaseUrl,
      REDIS_URL: undefined,
    }),
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  return new Promise<{ code: number; output: string }>((resolve) =>
    child.once("exit", (code) => resolve({ code: code ?? 1, output })),
  );
}

async function migrationNames(): Promise<string[]> {
  const entries = await readdir(DEFAULT_MIGRATIONS_DIR, { withFileTypes: true });
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** Every migration of the repository recorded exactly once, finished, none rolled back. */
export async function checkAppliedOnce(
  databaseUrl: string,
  label: string,
  check: Check,
): Promise<string> {
  const expected = await migrationNames();
  const rows = await migrationRows(databaseUrl);
  const names = rows.map((row) => row.migration_name);
  check(
    JSON.stringify(names) === JSON.stringify(expected),
    `${label}: the migrations table lists ${names.length} migrations, the repository has ${expected.length}`,
  );
  for (const row of rows) {
    check(
      row.runs === 1 && row.finished === 1 && row.rolled_back === 0,
      `${label}: ${row.migration_name} recorded ${row.runs} times (${row.finished} finished, ${row.rolled_back} rolled back)`,
    );
  }
  return `${rows.length} migrations, each recorded once and finished`;
}

export async function migrateCommandsAtOnce(
  databaseUrl: string,
  processes: number,
  context: Pick<ClusterContext, "check" | "log">,
): Promise<void> {
  const service = await composeMigrateService();
  const image = await readImageStart();
  const command = service.command;
  const results = await Promise.all(
    Array.from({ length: processes }, () => run(service, image, databaseUrl)),
  );
  const applied = results.filter((result) => /^applied: /m.test(result.output)).length;
  const nothing = results.filter((result) => /^no pending migrations$/m.test(result.output)).length;
  const waited = results.filter((result) => result.output.includes("waiting for it")).length;
  for (const result of results) {
    context.check(
      result.code === 0,
      `\`${command.join(" ")}\` exited ${result.code}: ${result.output.slice(-400)}`,
    );
  }
  context.check(
    applied === 1 && nothing === processes - 1,
    `${processes} migrate commands at once: ${applied} applied, ${nothing} found nothing to do`,
  );
  const summary = await checkAppliedOnce(databaseUrl, "migrate command", context.check);
  context.log(
    `\`${command.join(" ")}\` ×${processes} at once: ${applied} applied, ${nothing} found nothing ` +
      `left (${waited} waited for the lock); ${summary}`,
  );
}
