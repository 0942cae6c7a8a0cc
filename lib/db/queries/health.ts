import { sql, statement } from "../sql";

/** A round trip that touches no table. */
export const ping = statement("health.ping", () => sql`SELECT 1`, [[]]);

/** The migrations whose last attempt finished and was not rolled back, by name. */
export const appliedMigrations = statement(
  "health.appliedMigrations",
  () => sql`SELECT migration_name FROM _prisma_migrations
             WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  [[]],
);
