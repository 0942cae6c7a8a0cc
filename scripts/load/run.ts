import { db } from "../../lib/db/client";
import { rawSetting } from "../../lib/env";
import { forwardedFor, httpClient, runWorkers, sleep, type HttpClient } from "../lib/load-client";
import { startService, type ServiceProcess } from "../lib/service-process";
import { oversizeBodyAttack } from "./attacks/oversize-body";
import { poolPressure } from "./attacks/pool-pressure";
import { signInBruteForce } from "./attacks/sign-in-brute-force";
import { ACCOUNT_UIDS, startLoadBank } from "./bank";
import { clusterThroughput } from "./cluster";
import { browserScreensDuringOutage, upstreamFaults, type FaultResult } from "./faults";
import { startRunRedis } from "./redis";
import { mintCodes, oneRequest, setUpPopulation, Stats, type Population } from "./traffic";
import { promiseLedger } from "../lib/promises";

/**
 * Load and faults (prints a report; exits non-zero when a promise is broken):
 *
 *   npm run test:load              the long form (about three minutes)
 *   npm run test:load -- --short   the form `npm test` runs (under a minute)
 *   npm run test:load -- --cluster throughput through nginx, 1 instance vs 3 (./cluster.ts)
 *
 * Against the production build in a process of its own (its own PostgreSQL,
 * Redis and upstream bank): mixed traffic (authorize, token exchange, data
 * reads, syncs) at fixed concurrency with zero 5xx; PostgreSQL stopped mid-run
 * (every answer 503 with Retry-After meanwhile, full recovery afterwards);
 * Redis killed (requests still served, and the sign-in limits still hold
 * against a brute force: attacks/sign-in-brute-force.ts); the bank failing or
 * timing out (the documented sync reasons). Then every key issued during the
 * run must still work and the database must hold no half-written rows.
 */

const short = process.argv.includes("--short");
const PHASES = short
  ? { steady: 10_000, outage: 5_000, recovery: 8_000, redisDown: 6_000, bruteForce: 2_000 }
  : { steady: 60_000, outage: 15_000, recovery: 30_000, redisDown: 20_000, bruteForce: 20_000 };
const CONCURRENCY = 16;
const POOL_PRESSURE = short
  ? { bulkSyncs: 6, signIns: 10, tokenExchanges: 10, bigTransactions: 2_000 }
  : { bulkSyncs: 20, signIns: 40, tokenExchanges: 40, bigTransactions: 5_000 };
const USERS = short ? 6 : 20;
/** After PostgreSQL is back and /healthz says so, connections may still be re-opening. */
const RECONNECT_GRACE_MS = 2_000;

const { failures, check, exit: exitWithVerdict } = promiseLedger();

function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Keeps a stock of codes to exchange while the database is up. */
function startMinter(population: Population, running: () => boolean) {
  const loop = async () => {
    while (running()) {
      if (population.codes.length >= 40) {
        await sleep(50);
        continue;
      }
      await mintCodes(population, 5).catch(() => sleep(250));
    }
  };
  return loop();
}

async function traffic(
  http: HttpClient,
  population: Population,
  stats: Stats,
  window: string,
  durationMs: number,
  allowed: number[],
) {
  const random = seeded(window.length * 7919 + durationMs);
  const stopAt = Date.now() + durationMs;
  let sequence = 0;
  const started = Date.now();
  await runWorkers(
    CONCURRENCY,
    () => Date.now() >= stopAt,
    () =>
      oneRequest(http, population, stats, { window, allowed, random, sequence: sequence++ }).catch(
        (error: Error) => void failures.push(`${window}: a request failed: ${error.message}`),
      ),
  );
  const seconds = (Date.now() - started) / 1000;
  console.log(`  ${window}: ${sequence} requests in ${seconds.toFixed(1)} s`);
}

async function waitForHealthy(http: HttpClient): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 60_000) {
    const answer = await http({ path: "/healthz" }).catch(() => null);
    if (answer?.status === 200) return Date.now() - started;
    await sleep(100);
  }
  throw new Error("the service did not recover within 60 s");
}

async function finalChecks(http: HttpClient, population: Population) {
  const keys = [...population.issuedKeys];
  let refused = 0;
  await runWorkers(
    8,
    () => keys.length === 0,
    async () => {
      const key = keys.pop();
      if (!key) return;
      const answer = await http({
        path: "/oauth/userinfo",
        headers: { Authorization: `Bearer ${key}`, ...forwardedFor(keys.length) },
      });
      if (answer.status !== 200) refused += 1;
    },
  );
  console.log(`  ${population.issuedKeys.length} issued keys checked, ${refused} refused`);
  check(refused === 0, `${refused} issued keys no longer work`);

  const halfConsumed = await db().authorizationCode.count({
    where: {
      OR: [
        { consumedAt: null, apiKeyId: { not: null } },
        { consumedAt: { not: null }, apiKeyId: null },
      ],
    },
  });
  const keysWithoutCode = await db().apiKey.count({ where: { code: { is: null } } });
  const emptyConnections = await db().connection.count({ where: { accounts: { none: {} } } });
  const storedKeys = await db().apiKey.count();
  console.log(
    `  half-consumed codes ${halfConsumed}, keys without a code ${keysWithoutCode}, ` +
      `connections without accounts ${emptyConnections}, keys stored ${storedKeys} / answered ${population.issuedKeys.length}`,
  );
  check(halfConsumed === 0, `${halfConsumed} codes half-consumed`);
  check(keysWithoutCode === 0, `${keysWithoutCode} keys without a code`);
  check(emptyConnections === 0, `${emptyConnections} connections without accounts`);
  check(storedKeys === population.issuedKeys.length, "a key was stored that no client received");
}

/** Bodies of 11 and 50 MB: every one refused with 413, no handler acting on any (docs/request-bodies.md). */
async function oversizeBodies(origin: string, population: Population) {
  const code = population.codes.pop();
  const user = population.users[0];
  if (!code || !user) throw new Error("the oversize-body attack needs a code and a user");
  const report = await oversizeBodyAttack({
    origin,
    client: population.client,
    code,
    key: user.key,
    accountId: user.accountIds[0] ?? "",
    uid: ACCOUNT_UIDS[0] ?? "",
  });
  console.log("oversize bodies:");
  for (const line of report.lines) console.log(line);
  failures.push(...report.failures);
}

function printTable(stats: Stats) {
  console.log("\n  operation      requests   p50 ms   p99 ms   statuses");
  for (const [name, tally] of stats.byOperation) {
    const statuses = [...tally.statuses].map(([code, count]) => `${code}×${count}`).join(" ");
    console.log(
      `  ${name.padEnd(13)} ${String(tally.latencies.count).padStart(9)} ${tally.latencies.percentile(50).toFixed(1).padStart(8)} ${tally.latencies.percentile(99).toFixed(1).padStart(8)}   ${statuses}`,
    );
  }
}

async function main() {
  console.log(`load and faults (${short ? "short" : "long"} form), concurrency ${CONCURRENCY}`);
  const bank = await startLoadBank();
  const redis = await startRunRedis();
  let service: ServiceProcess | undefined;
  let minting = true;
  let minter: Promise<void> | undefined;
  try {
    service = await startService({
      label: "load",
      settings: {
        ...bank.settings,
        REDIS_URL: redis.url,
        LOG_LEVEL: rawSetting("LOG_LEVEL") ?? "warn",
      },
    });
    const http = httpClient(service.origin, CONCURRENCY * 2);
    const population = await setUpPopulation(http, bank, USERS);
    await mintCodes(population, 40);
    await oversizeBodies(service.origin, population);
    minter = startMinter(population, () => minting);
    const stats = new Stats();

    console.log("phases:");
    await traffic(http, population, stats, "steady", PHASES.steady, []);

    await service.stopDatabase();
    await traffic(http, population, stats, "postgres down", PHASES.outage, [503]);
    const screens = await browserScreensDuringOutage(http);
    const outage503 = stats.count((code) => code === 503);
    check(outage503 > 0, "no 503 while PostgreSQL was down");
    await service.startDatabase();
    const recoveredMs = await waitForHealthy(http);
    console.log(`  postgres back: /healthz 200 after ${recoveredMs} ms`);
    await traffic(http, population, stats, "reconnecting", RECONNECT_GRACE_MS, [503]);
    await traffic(http, population, stats, "recovered", PHASES.recovery, []);

    await redis.kill();
    await traffic(http, population, stats, "redis down", PHASES.redisDown, []);
    await signInBruteForce({
      http,
      origin: service.origin,
      redis,
      durationMs: PHASES.bruteForce,
      check,
    });
    await redis.start();

    minting = false;
    await minter;
    const faults = await upstreamFaults(http, bank, population);
    console.log("faults:");
    for (const fault of [...screens, ...faults] satisfies FaultResult[]) {
      console.log(
        `  ${fault.ok ? "ok  " : "FAIL"} ${fault.label}: expected ${fault.expected}, got ${fault.got}`,
      );
      check(
        fault.ok,
        `upstream fault "${fault.label}": expected ${fault.expected}, got ${fault.got}`,
      );
    }

    console.log("pool pressure:");
    await poolPressure(service.origin, bank, population, POOL_PRESSURE, check);

    printTable(stats);
    console.log(`\n  503 while PostgreSQL was down: ${outage503}`);
    console.log("final checks:");
    await finalChecks(http, population);
    failures.push(...stats.unexpected);
  } finally {
    minting = false;
    await minter?.catch(() => undefined);
    await service?.stop();
    await redis.close();
    await bank.close();
  }
  exitWithVerdict("all promises kept");
}

const run = process.argv.includes("--cluster")
  ? clusterThroughput().then((code) => process.exit(code))
  : main();
run.catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
