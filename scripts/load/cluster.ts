import { rawSetting, setSetting } from "../../lib/env";
import { disconnectDb } from "../../lib/db/client";
import {
  startCluster,
  startScratchServer,
  type Cluster,
  type ScratchServer,
} from "../cluster/cluster";
import { httpClient, Latencies, runWorkers } from "../lib/load-client";
import { ensureBuild } from "../lib/service-process";
import { startLoadBank } from "./bank";
import { startRunRedis } from "./redis";
import { mintCodes, oneRequest, setUpPopulation, Stats, type Population } from "./traffic";

/**
 * `npm run test:load -- --cluster`: the load run's mix (authorize, token
 * exchange, reads, syncs against the local Enable Banking server) at the same
 * concurrency, through nginx to one instance and then through nginx to three,
 * in one run on one machine. Prints requests per second and latencies of both;
 * asserts nothing about them (several instances on the same cores share the
 * same CPU), only that no answer is unexpected.
 *
 * The load generator stands for a proxy in front of nginx that forwards each
 * simulated client's address (X-Forwarded-For), so the instances trust two
 * hops here: nginx, and the generator.
 */

const INSTANCES = 3;
const CONCURRENCY = 16;
const USERS = 20;
const seconds = (flag: string, fallback: number) => {
  const at = process.argv.indexOf(flag);
  const value = at >= 0 ? Number(process.argv[at + 1]) : NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const WARM_UP_S = seconds("--warm-up", 5);
const MEASURE_S = seconds("--seconds", 30);

function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}

interface Measurement {
  label: string;
  requests: number;
  seconds: number;
  latencies: Latencies;
  stats: Stats;
}

async function measure(
  label: string,
  origin: string,
  population: Population,
  durationS: number,
): Promise<Measurement> {
  const http = httpClient(origin, CONCURRENCY * 2);
  const stats = new Stats();
  const latencies = new Latencies();
  const random = seeded(label.length * 7919);
  let sequence = 0;
  let minting = false;
  const started = Date.now();
  const stopAt = started + durationS * 1000;
  await runWorkers(
    CONCURRENCY,
    () => Date.now() >= stopAt,
    async () => {
      // Codes for the token exchanges are made between requests, outside the clock's concern.
      if (population.codes.length < 10 && !minting) {
        minting = true;
        await mintCodes(population, 20).finally(() => (minting = false));
      }
      const before = performance.now();
      await oneRequest(http, population, stats, {
        window: label,
        allowed: [],
        random,
        sequence: sequence++,
      });
      latencies.add(performance.now() - before);
    },
  );
  return { label, requests: sequence, seconds: (Date.now() - started) / 1000, latencies, stats };
}

function print(results: Measurement[]) {
  console.log("\n  behind nginx        requests   req/s   p50 ms   p99 ms   unexpected");
  for (const result of results) {
    console.log(
      `  ${result.label.padEnd(18)} ${String(result.requests).padStart(9)} ${(result.requests / result.seconds).toFixed(1).padStart(7)} ` +
        `${result.latencies.percentile(50).toFixed(1).padStart(8)} ${result.latencies.percentile(99).toFixed(1).padStart(8)}   ${result.stats.unexpected.length}`,
    );
  }
  for (const result of results) {
    console.log(`\n  ${result.label}, by operation:`);
    for (const [name, tally] of result.stats.byOperation) {
      const statuses = [...tally.statuses].map(([code, count]) => `${code}×${count}`).join(" ");
      console.log(
        `    ${name.padEnd(13)} ${String(tally.latencies.count).padStart(6)}  p50 ${tally.latencies.percentile(50).toFixed(1).padStart(7)}  p99 ${tally.latencies.percentile(99).toFixed(1).padStart(7)}  ${statuses}`,
      );
    }
  }
}

export async function clusterThroughput(): Promise<number> {
  console.log(
    `load over a cluster: the same mix at concurrency ${CONCURRENCY}, ${MEASURE_S} s through nginx ` +
      `to 1 instance, then ${MEASURE_S} s to ${INSTANCES} (after ${WARM_UP_S} s of warm-up on all)`,
  );
  await ensureBuild(process.argv.includes("--build"));
  const bank = await startLoadBank();
  const redis = await startRunRedis();
  let server: ScratchServer | undefined;
  let cluster: Cluster | undefined;
  const unexpected: string[] = [];
  try {
    server = await startScratchServer("load-cluster");
    const databaseUrl = await server.createDatabase("load_cluster");
    cluster = await startCluster({
      label: "load-cluster",
      instances: INSTANCES,
      databaseUrl,
      settings: {
        ...bank.settings,
        REDIS_URL: redis.url,
        TRUSTED_PROXY_HOPS: "2",
        LOG_LEVEL: rawSetting("LOG_LEVEL") ?? "warn",
      },
      // The first site spreads over every instance; the second sends everything to the first.
      sites: [Array.from({ length: INSTANCES }, (_, i) => i), [0]],
    });
    const [all = "", one = ""] = cluster.origins;
    setSetting("DATABASE_URL", databaseUrl);
    setSetting("ISSUER", all);
    const population = await setUpPopulation(httpClient(all), bank, USERS);
    await mintCodes(population, 40);

    await measure("warm-up", all, population, WARM_UP_S);
    const results = [
      await measure("1 instance", one, population, MEASURE_S),
      await measure(`${INSTANCES} instances`, all, population, MEASURE_S),
    ];
    print(results);
    for (const result of results) unexpected.push(...result.stats.unexpected);
    const cores = (await import("node:os")).availableParallelism();
    const [single, many] = results.map((result) => result.requests / result.seconds);
    console.log(
      `\n  ${INSTANCES} instances ÷ 1: ${((many ?? 0) / (single ?? 1)).toFixed(2)}× on ${cores} cores ` +
        `shared by the instances, PostgreSQL, Redis, nginx, the bank and this load generator`,
    );
  } finally {
    await cluster?.stop();
    await disconnectDb().catch(() => undefined);
    await server?.release();
    await redis.close();
    await bank.close();
  }
  if (unexpected.length > 0) {
    console.error(`\nFAILED: ${unexpected.length} unexpected answers`);
    for (const line of unexpected.slice(0, 20)) console.error(`  ${line}`);
    return 1;
  }
  return 0;
}
