import { existsSync } from "node:fs";
import path from "node:path";
import { disconnectDb } from "../lib/db/client";
import { nativeAgreement } from "../lib/crypto/p256-agree";
import { checkSettings, EnvError } from "../lib/env";
import { startJobs, stopJobs } from "../lib/jobs/boss";
import { serviceSchedules } from "../lib/jobs/schedules";
import { flushKeyUsesOnShutdown } from "../lib/keys/last-use";
import { accessMailsSettled } from "../lib/oauth/access-mail";
import { makeMissingNameKeys } from "../lib/partners/name-keys";
import { startBankApplicationChecks } from "../lib/upstream/application-check";
import { distDir, resolveDatabase, REPO_ROOT, type ResolvedDatabase } from "./lib/database";
import { serveNext, type RunningServer } from "./lib/http-server";
import { applyMigrations } from "./lib/migrations";
import { DEMO_OWNER_EMAIL, seedDemo, type DemoSeed } from "./lib/seed";

/**
 * `npm run dev` / `npm start`: one command from a fresh clone to a running
 * service. Starts the embedded PostgreSQL when DATABASE_URL is unset, applies
 * migrations, seeds the demo partner, serves Next in this process, and on
 * Ctrl-C / SIGTERM stops the server first and PostgreSQL second, so nothing
 * is left running.
 *
 * `npm start` is a production build: it refuses the development defaults,
 * naming each setting to fix, unless LOCAL_ONLY=true makes it a build for
 * this machine only (docs/production.md). It checks that before anything
 * else, so a refused start leaves nothing behind. `npm run dev` runs this file
 * through tsx; `npm start` runs it as `npm run build` compiles it
 * (scripts/build-launcher.mjs), with no TypeScript compiler loaded.
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

/** The demo client's secret is printed in development only, never by a production build. */
function printBanner(issuer: string, demo: DemoSeed | null) {
  const lines = [
    "",
    `Bank Connect is running at ${issuer}`,
    "",
    `  Home                ${issuer}/`,
    `  Server metadata     ${issuer}/.well-known/oauth-authorization-server`,
    `  Health              ${issuer}/healthz`,
    "",
  ];
  if (demo) {
    lines.push(
      "  Demo partner client (Demo Budget App)",
      `    client_id         ${demo.clientId}`,
      `    client_secret     ${demo.clientSecret ?? "(random, kept sealed for the demo; shown only by `npm run dev`)"}`,
      `    redirect_uri      ${demo.redirectUri}`,
      "",
      `  Demo owner          ${DEMO_OWNER_EMAIL} (owns the demo partner in the dashboard)`,
      `  Sign-in mail        not sent locally: npm run admin -- mail last --to ${DEMO_OWNER_EMAIL}`,
      "",
      "  Next steps",
      `    1. ${issuer}/demo        connect a sandbox bank as a user`,
      `    2. ${issuer}/dashboard   sign in as ${DEMO_OWNER_EMAIL}: branding, clients, decryption key`,
      `    3. ${issuer}/docs        integrate your own app`,
      "",
    );
  }
  lines.push("Press Ctrl-C to stop.", "");
  console.log(lines.join("\n"));
}

async function main() {
  const mode = parseMode(process.argv);
  let env;
  try {
    env = checkSettings("start");
  } catch (error) {
    console.error(error instanceof EnvError ? error.message : error);
    process.exit(1);
  }
  if (mode === "start" && !existsSync(path.join(REPO_ROOT, distDir(), "BUILD_ID"))) {
    console.error("No production build found: run `npm run build` first.");
    process.exit(1);
  }

  let database: ResolvedDatabase | undefined;
  let server: RunningServer | undefined;
  let stopping = false;

  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await server?.close().catch(() => undefined);
    // The API keys' last uses noted since the last flush (lib/keys/last-use.ts), and the
    // access-granted mails still waiting for their batch (lib/oauth/access-mail.ts).
    await flushKeyUsesOnShutdown();
    await accessMailsSettled();
    // Background jobs (lib/jobs): the jobs in hand may finish, then the queue's connections close.
    await stopJobs().catch(() => undefined);
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
    log(
      applied.length
        ? `applied migrations: ${applied.join(", ")}`
        : "database schema is up to date",
    );
    const demo = env.demoEnabled ? await seedDemo() : null;
    // Partners from before the look-alike name keys get theirs before anything is served.
    const named = await makeMissingNameKeys();
    if (named.partners > 0) {
      log(`made the look-alike name keys of ${named.partners} partner(s)`);
    }
    // Next's bundle opens its own pool; this one was only for setting up.
    await disconnectDb();
    // Source maps stay off in production, also when this file runs through tsx (which turns them
    // on for the TypeScript it compiles): Node would otherwise read and keep the source map of
    // every chunk of the production build it loads (docs/operations.md, "Memory and sizing").
    // Stack traces then point into the built chunks.
    if (mode === "start") process.setSourceMapsEnabled(false);
    server = await serveNext({
      dev: mode === "dev",
      port: env.port,
      trustedProxyHops: env.trustedProxyHops,
    });
    log(
      nativeAgreement()
        ? "envelopes are sealed with the native P-256 key agreement"
        : "envelopes are sealed with node:crypto: native/p256-agree is not built (install a C compiler and run npm install again for about twice the sealing speed)",
    );
    // Background jobs (lib/jobs, docs/operations.md#background-jobs): queued mail, the janitor,
    // audit retention. Started once the server answers, so they do not hold up the first answer.
    await startJobs({ schedules: serviceSchedules() });
    printBanner(env.issuer, demo);
    // With Enable Banking: is {ISSUER}/banks/callback registered? Logged, and on /healthz.
    startBankApplicationChecks();
  } catch (error) {
    console.error(
      `[bank-connect] could not start: ${error instanceof Error ? error.message : String(error)}`,
    );
    await stop(1);
  }
}

void main();
