import { openAdminDatabase } from "./admin/database";
import { seedDemo } from "./lib/seed";

/**
 * `npm run db:seed`: seeds the demo partner and client (idempotent) and prints
 * them as JSON. In development that includes the demo client's secret (random
 * per installation, the same on every run); in production it is null.
 */
async function main(): Promise<number> {
  try {
    const database = await openAdminDatabase((line) => console.error(`seed: ${line}`));
    try {
      console.log(JSON.stringify(await seedDemo(), null, 2));
      return 0;
    } finally {
      await database.close();
    }
  } catch (error) {
    const message =
      error instanceof Error ? (error.message.trim().split("\n")[0] ?? "") : String(error);
    console.error(`seed: ${message}`);
    return 1;
  }
}

process.exit(await main());
