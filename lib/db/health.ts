import { readdir } from "node:fs/promises";
import path from "node:path";
import { db } from "./client";
import { appliedMigrations, ping } from "./queries/health";
import { queryIn } from "./sql";

/** True when a round trip to the database succeeds within the timeout. */
export async function isDatabaseReachable(timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = queryIn(db(), ping())
    .then(() => true as const)
    .catch(() => false as const);
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The migrations this build ships (prisma/migrations/<name>/), read once. */
let shipped: Promise<string[]> | undefined;

function shippedMigrations(): Promise<string[]> {
  shipped ??= readdir(path.join(process.cwd(), "prisma", "migrations"), { withFileTypes: true })
    .then((entries) =>
      entries
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort(),
    )
    .catch((error: unknown) => {
      shipped = undefined;
      throw error;
    });
  return shipped;
}

/**
 * The shipped migrations the database has not applied (or whose last attempt
 * failed), by name, oldest first; every one of them when the database has no
 * migration table yet. Throws when the database cannot be asked.
 */
export async function pendingMigrations(): Promise<string[]> {
  const names = await shippedMigrations();
  const applied = await queryIn<{ migration_name: string }>(db(), appliedMigrations()).catch(
    (error: unknown) => {
      // 42P01: no _prisma_migrations table, so nothing was ever applied.
      if (/42P01|does not exist/.test(String((error as { message?: unknown }).message ?? error))) {
        return [];
      }
      throw error;
    },
  );
  const done = new Set(applied.map((row) => row.migration_name));
  return names.filter((name) => !done.has(name));
}
