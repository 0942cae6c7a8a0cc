import { readFile } from "node:fs/promises";
import { disconnectDb } from "../../lib/db/client";
import { rawSetting, setSetting } from "../../lib/env";
import { startRunRedis, type RunRedis } from "../load/redis";
import { ensureBuild } from "../lib/service-process";
import { startCluster, startScratchServer, type Cluster, type ScratchServer } from "./cluster";
import { startSmtpRelay, type SmtpRelay } from "../../test/smtp-relay";
import { hostedFlowAcrossInstances } from "./hosted-flow";
import { mailQueuedThroughProxy, RelayScript, scheduledJobRunsOnce } from "./jobs";
import { checkAppliedOnce, migrateCommandsAtOnce } from "./migrations";
import { codeRedeemedOnce, rateLimitsAreGlobal, revocationIsImmediate } from "./shared-state";
import type { ClusterContext } from "./types";
import { webhooksDeliveredOnce } from "./webhooks";
import { promiseLedger } from "../lib/promises";

/**
 * Several instances behind a real proxy (`npm run test:cluster`, part of
 * `npm test`; exits non-zero when a promise is broken): three processes of the
 * production build, started as `npm start` starts the service, on one
 * PostgreSQL and one Redis, behind Debian's nginx on loopback. Proves, over
 * HTTP, that the rate limits are global, a revocation is seen by the next
 * request on every instance, a code is redeemed once however many instances
 * race for it, a hosted flow continues from instance to instance, and
 * migrations started by several processes at once are applied once, and
 * each webhook event is delivered once (./webhooks.ts). Then two
 * instances with a job queue (./jobs.ts): a scheduled job runs once a
 * minute across both, and a mail asked for through nginx while the relay
 * greylists is delivered once.
 */

const INSTANCES = 3;
const CODE_ROUNDS = 5;
/** The job queue's cluster: two instances behind nginx. */
const JOB_INSTANCES = 2;
/** Minutes of the every-minute probe schedule watched. */
const PROBE_MINUTES = 2;

const { failures, check, exit: exitWithVerdict } = promiseLedger();

async function step(name: string, body: (log: (line: string) => void) => Promise<void>) {
  const before = failures.length;
  const lines: string[] = [];
  const started = Date.now();
  try {
    await body((line) => lines.push(line));
  } catch (error) {
    failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`${failures.length === before ? "ok  " : "FAIL"} ${name} (${seconds} s)`);
  for (const line of lines) console.log(`     ${line}`);
}

/** What each launcher said about the migrations when the instances started at once. */
async function launcherMigrations(
  cluster: Cluster,
): Promise<{ applied: number; upToDate: number }> {
  const logs = await Promise.all(
    cluster.instances.map((instance) => readFile(instance.logFile, "utf8")),
  );
  return {
    applied: logs.filter((text) => text.includes("applied migrations: ")).length,
    upToDate: logs.filter((text) => text.includes("database schema is up to date")).length,
  };
}

async function main() {
  console.log(`cluster: ${INSTANCES} instances behind nginx, one PostgreSQL, one Redis`);
  await ensureBuild(process.argv.includes("--build"));
  let server: ScratchServer | undefined;
  let redis: RunRedis | undefined;
  let cluster: Cluster | undefined;
  let jobsCluster: Cluster | undefined;
  let relay: SmtpRelay | undefined;
  const relayScript = new RelayScript();
  try {
    server = await startScratchServer("cluster");
    const redisUrl = rawSetting("REDIS_URL") ?? (redis = await startRunRedis()).url;
    const migrateDatabase = await server.createDatabase("cluster_migrate");
    await step(`migrations: the image's migrate command, ${INSTANCES} at once`, (log) =>
      migrateCommandsAtOnce(migrateDatabase, INSTANCES, { check, log }),
    );

    const databaseUrl = await server.createDatabase("cluster");
    const started = Date.now();
    cluster = await startCluster({
      label: "cluster",
      instances: INSTANCES,
      databaseUrl,
      settings: {
        REDIS_URL: redisUrl,
        LOG_LEVEL: rawSetting("LOG_LEVEL") ?? "warn",
        // Webhooks to the run's receiver on loopback, retried after 2 seconds.
        WEBHOOKS_ALLOW_LOOPBACK: "true",
        WEBHOOKS_RETRY_SCHEDULE: "2,2,2",
      },
    });
    const proxy = cluster.origins[0] ?? "";
    const instances = cluster.instances.map((instance) => instance.origin);
    console.log(
      `     nginx ${proxy} → ${instances.join(", ")} (healthy after ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    const running = cluster;
    await step(
      `migrations: ${INSTANCES} instances started at once on an empty database`,
      async (log) => {
        const said = await launcherMigrations(running);
        check(
          said.applied === 1 && said.upToDate === INSTANCES - 1,
          `launchers: ${said.applied} applied the migrations, ${said.upToDate} found the schema up to date`,
        );
        log(
          `${said.applied} launcher applied them, ${said.upToDate} found the schema up to date; ${await checkAppliedOnce(databaseUrl, "launchers", check)}`,
        );
      },
    );

    // This process shares the instances' database (partners, codes, the mail outbox).
    setSetting("DATABASE_URL", databaseUrl);
    setSetting("ISSUER", proxy);
    const context = (log: (line: string) => void): ClusterContext => ({
      proxy,
      instances,
      check,
      log,
    });
    await step("rate limits are global across the instances", (log) =>
      rateLimitsAreGlobal(context(log)),
    );
    await step("a revoked key is refused by the next request on every instance", (log) =>
      revocationIsImmediate(context(log)),
    );
    await step("a code redeemed on every instance at once yields one key", (log) =>
      codeRedeemedOnce(context(log), CODE_ROUNDS),
    );
    await step("a hosted flow continues from instance to instance", (log) =>
      hostedFlowAcrossInstances(context(log)),
    );
    setSetting("WEBHOOKS_ALLOW_LOOPBACK", "true");
    await step(
      `${INSTANCES} instances deliver each webhook event once, a retry with its webhook-id`,
      (log) => webhooksDeliveredOnce(context(log), databaseUrl),
    );
    const nginxErrors = (await readFile(cluster.nginx.errorLog, "utf8").catch(() => "")).trim();
    check(nginxErrors === "", `nginx logged: ${nginxErrors.slice(0, 400)}`);
    await cluster.stop();
    cluster = undefined;

    // The background job queue: JOB_INSTANCES instances with the every-minute probe schedule,
    // mailing through a real SMTP relay in this process.
    relay = await startSmtpRelay(relayScript.next);
    const jobsDatabase = await server.createDatabase("cluster_jobs");
    jobsCluster = await startCluster({
      label: "cluster-jobs",
      instances: JOB_INSTANCES,
      databaseUrl: jobsDatabase,
      settings: {
        REDIS_URL: redisUrl,
        LOG_LEVEL: rawSetting("LOG_LEVEL") ?? "warn",
        SMTP_URL: `smtp://127.0.0.1:${relay.port}`,
        SMTP_REQUIRE_TLS: "false",
        JOBS_CLUSTER_PROBE: "true",
      },
    });
    const jobsProxy = jobsCluster.origins[0] ?? "";
    const jobsContext = (log: (line: string) => void): ClusterContext => ({
      proxy: jobsProxy,
      instances: jobsCluster?.instances.map((instance) => instance.origin) ?? [],
      check,
      log,
    });
    const liveRelay = relay;
    await step(
      `a sign-in mail through nginx, greylisted at first, is delivered once by the job queue`,
      (log) => mailQueuedThroughProxy(jobsContext(log), liveRelay, relayScript, jobsDatabase),
    );
    await step(
      `${JOB_INSTANCES} instances run each minute's scheduled job once (${PROBE_MINUTES} minutes)`,
      (log) => scheduledJobRunsOnce(jobsContext(log), jobsDatabase, PROBE_MINUTES),
    );
  } finally {
    await cluster?.stop();
    await jobsCluster?.stop();
    await relay?.close();
    await disconnectDb().catch(() => undefined);
    await server?.release();
    await redis?.close();
  }
  exitWithVerdict("all promises kept");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
