import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { disconnectDb } from "../../lib/db/client";
import { connectedPartnerUser } from "../../test/bank-data";
import { dataDir, distDir, REPO_ROOT } from "../lib/database";
import { forwardedFor, httpClient, runWorkers, type HttpRequest } from "../lib/load-client";
import { startService } from "../lib/service-process";
import { startRunRedis } from "../load/redis";
import {
  categorizer,
  cpuByPhase,
  middlewareChunks,
  type CpuProfile,
  type Phase,
} from "./cpu-profile";

/**
 * CPU per request (prints figures, asserts nothing):
 *
 *   npm run bench:cpu            3 000 requests per endpoint
 *   npm run bench:cpu -- --top   also the functions that cost most per endpoint
 *   npm run bench:cpu -- --keep  keeps the profiles (open them in Chrome's DevTools)
 *
 * Runs the production service under `node --cpu-prof` and sends a fixed
 * number of requests to each endpoint at concurrency 16, one endpoint after
 * the other. The CPU time the kernel counted for the server's main thread
 * (and for the whole process) during each endpoint's requests, divided by
 * their count, is the cost per request. The profile splits it: the share of
 * the main thread's busy samples spent in the edge (middleware, the service's
 * HTTP server and the edge functions of lib/http and lib/ratelimit), in Next's
 * routing, and in the rest (the handler or page, Next's rendering, HTTP,
 * garbage collection). Samples are taken by wall clock, so on a busy machine
 * only their shares are meaningful, not their sums; both processes read the
 * same monotonic clock, so each endpoint's samples are cut out by time.
 */

const COUNT = Number(process.argv.find((arg) => /^--count=\d+$/.test(arg))?.slice(8) ?? 3000);
const CONCURRENCY = 16;
const log = (line: string) => console.log(`[bench:cpu] ${line}`);
const nowMicros = () => Number(process.hrtime.bigint() / 1000n);

/** CPU milliseconds (user + system) the kernel counted for a process or one of its threads. */
async function cpuMs(statFile: string): Promise<number> {
  const stat = await readFile(statFile, "utf8");
  // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
/** The kernel's USER_HZ, 100 on Linux. */
const CLOCK_TICKS = 100;

async function main() {
  const profileDir = path.join(dataDir(), `cpu-profile-${process.pid}`);
  const redis = await startRunRedis();
  const service = await startService({
    label: "bench-cpu",
    settings: {
      REDIS_URL: redis.url,
      LOG_LEVEL: "warn",
    },
    nodeFlags: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`],
    log,
  });
  const phases: Phase[] = [];
  const cpu: { main: number; process: number }[] = [];
  const mainStat = `/proc/${service.pid}/task/${service.pid}/stat`;
  const processStat = `/proc/${service.pid}/stat`;
  try {
    const http = httpClient(service.origin, CONCURRENCY * 2);
    const user = await connectedPartnerUser();
    let sequence = 0;
    const endpoints: { name: string; request: () => HttpRequest }[] = [
      {
        name: "GET /.well-known/oauth-authorization-server",
        request: () => ({
          path: "/.well-known/oauth-authorization-server",
          headers: forwardedFor(sequence++),
        }),
      },
      {
        name: "GET /api/accounts",
        request: () => ({
          path: "/api/accounts",
          headers: { Authorization: `Bearer ${user.key}`, ...forwardedFor(sequence++) },
        }),
      },
      { name: "GET / (a page)", request: () => ({ path: "/", headers: forwardedFor(sequence++) }) },
    ];
    for (const endpoint of endpoints) {
      const run = async (count: number) => {
        let sent = 0;
        await runWorkers(
          CONCURRENCY,
          () => sent >= count,
          async () => {
            sent += 1;
            const answer = await http(endpoint.request());
            if (answer.status !== 200) throw new Error(`${endpoint.name}: ${answer.status}`);
          },
        );
      };
      log(`warming ${endpoint.name}`);
      await run(Math.ceil(COUNT / 5));
      log(`measuring ${endpoint.name} (${COUNT} requests)`);
      const [mainBefore, processBefore] = [await cpuMs(mainStat), await cpuMs(processStat)];
      const start = nowMicros();
      await run(COUNT);
      phases.push({ name: endpoint.name, start, end: nowMicros(), requests: COUNT });
      cpu.push({
        main: (await cpuMs(mainStat)) - mainBefore,
        process: (await cpuMs(processStat)) - processBefore,
      });
    }
  } finally {
    await service.stop();
    await redis.close();
    await disconnectDb().catch(() => undefined);
  }

  const files = (await readdir(profileDir)).filter((file) => file.endsWith(".cpuprofile"));
  const profiles = await Promise.all(
    files.map(
      async (file) => JSON.parse(await readFile(path.join(profileDir, file), "utf8")) as CpuProfile,
    ),
  );
  // One profile per thread: the main thread's has by far the most functions.
  const profile = profiles.sort((a, b) => b.nodes.length - a.nodes.length)[0];
  if (!profile) throw new Error(`no profile written to ${profileDir}`);
  const middleware = await readFile(
    path.join(REPO_ROOT, distDir(), "server", "middleware.js"),
    "utf8",
  ).catch(() => null);
  const results = cpuByPhase(profile, phases, categorizer(middlewareChunks(middleware)));
  const lines = [
    "| Endpoint | Requests | Process CPU ms/request | Main thread CPU ms/request | of which edge | Next routing | rest |",
    "|---|--:|--:|--:|--:|--:|--:|",
  ];
  results.forEach((result, index) => {
    const spent = cpu[index] ?? { main: 0, process: 0 };
    const main = spent.main / result.requests;
    const share = (category: string) =>
      result.busyMs > 0 ? (main * (result.byCategory[category] ?? 0)) / result.busyMs : 0;
    lines.push(
      `| ${result.name} | ${result.requests} | ${(spent.process / result.requests).toFixed(2)} | ${main.toFixed(2)} | ${share("edge").toFixed(2)} | ${share("routing").toFixed(2)} | ${share("rest").toFixed(2)} |`,
    );
  });
  console.log(`\n${lines.join("\n")}\n`);
  if (process.argv.includes("--top")) {
    for (const result of results) {
      console.log(`${result.name}: top self time (share of busy samples)`);
      for (const [frame, ms] of result.top) {
        console.log(`  ${((100 * ms) / result.busyMs).toFixed(1)}%  ${frame}`);
      }
    }
  }
  if (process.argv.includes("--keep")) {
    const kept = path.join(profileDir, "phases.json");
    await writeFile(kept, JSON.stringify(phases));
    log(`profiles and phases kept in ${path.relative(process.cwd(), profileDir)}`);
  } else {
    await rm(profileDir, { recursive: true, force: true });
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
