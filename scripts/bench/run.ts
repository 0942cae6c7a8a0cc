import { writeFile } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { disconnectDb } from "../../lib/db/client";
import { connectedPartnerUser } from "../../test/bank-data";
import { issueCode, newVerifier, basicAuthorization } from "../../test/oauth-fixtures";
import { dataDir } from "../lib/database";
import {
  forwardedFor,
  httpClient,
  Latencies,
  runWorkers,
  type HttpClient,
  type HttpRequest,
} from "../lib/load-client";
import { startService } from "../lib/service-process";
import { startRunRedis } from "../load/redis";
import { startBareBaseline, startConstantNext, type Baseline } from "./baselines";
import { screenWeights, weighHtml } from "./screens";
import { connectShop, forgetHistory } from "./shop";

/**
 * Benchmarks (prints a table, asserts nothing):
 *
 *   npm run bench              10 s per measurement, 3 syncs of ~10 000 transactions
 *   npm run bench -- --short   a quick pass (what `npm test` runs, to keep the script working)
 *
 * Requests/s and p50/p99 at fixed concurrency for discovery, token exchange,
 * GET /api/accounts, a transactions page and a sync of about 10 000 new
 * transactions, each next to two baselines measured in the same run on the
 * same machine: a bare Node HTTP server answering the same JSON, and a
 * Next.js route handler returning a constant. Then the JavaScript each flow
 * screen ships. The service runs its production build with PostgreSQL and
 * Redis; every simulated client has its own address (one trusted proxy hop).
 */

const short = process.argv.includes("--short");
const DURATION_MS = short ? 1_500 : 10_000;
const WARMUP_MS = short ? 300 : 2_000;
const CONCURRENCY = 16;
const SYNC_SAMPLES = short ? 1 : 3;
const log = (line: string) => console.log(`[bench] ${line}`);

const BARE_TOKEN_REQUEST: HttpRequest = {
  method: "POST",
  path: "/oauth/token",
  headers: { "Content-Type": "application/x-www-form-urlencoded" },
  body: "grant_type=authorization_code&code=x&code_verifier=y",
};

interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  count: number;
  failed: number;
}

let sequence = 0;
const fromSomeone = () => forwardedFor(sequence++);

async function measure(
  http: HttpClient,
  next: () => HttpRequest | null,
  options: { durationMs: number; concurrency: number; maxRequests?: number },
): Promise<Measurement> {
  const latencies = new Latencies();
  let failed = 0;
  let exhausted = false;
  const started = performance.now();
  const stopAt = started + options.durationMs;
  await runWorkers(
    options.concurrency,
    () =>
      exhausted ||
      performance.now() >= stopAt ||
      latencies.count >= (options.maxRequests ?? Infinity),
    async () => {
      const request = next();
      if (!request) {
        exhausted = true;
        return;
      }
      const answer = await http(request);
      latencies.add(answer.ms);
      if (answer.status >= 400) failed += 1;
    },
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    rps: latencies.count / seconds,
    p50: latencies.percentile(50),
    p99: latencies.percentile(99),
    count: latencies.count,
    failed,
  };
}

interface Row {
  name: string;
  concurrency: number;
  service: Measurement;
  bare: Measurement;
  constant: Measurement;
}

const fixed = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : "–");
/** Two significant digits: ratios and slow rates stay readable however small. */
const significant = (value: number) =>
  Number.isFinite(value) ? (value >= 10 ? value.toFixed(1) : value.toPrecision(2)) : "–";

function table(rows: Row[]): string {
  const lines = [
    "| Endpoint | Conc. | Service req/s | p50 ms | p99 ms | Bare Node req/s | p50 ms | p99 ms | Next constant req/s | p50 ms | p99 ms | Service ÷ bare | Service ÷ Next |",
    "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ];
  for (const { name, concurrency, service, bare, constant } of rows) {
    lines.push(
      `| ${name} | ${concurrency} | ${significant(service.rps)} | ${fixed(service.p50)} | ${fixed(service.p99)} | ${fixed(bare.rps, 0)} | ${fixed(bare.p50)} | ${fixed(bare.p99)} | ${fixed(constant.rps, 0)} | ${fixed(constant.p50)} | ${fixed(constant.p99)} | ${significant(service.rps / bare.rps)} | ${significant(service.rps / constant.rps)} |`,
    );
  }
  return lines.join("\n");
}

async function main() {
  const redis = await startRunRedis();
  const service = await startService({
    label: "bench",
    settings: {
      REDIS_URL: redis.url,
      LOG_LEVEL: "warn",
      // The sync row measures two years of a shop's history on whatever machine runs it; the
      // sync deadline (docs/capacity.md) is not what is measured, so it must not cut it short.
      SYNC_DEADLINE_SECONDS: "600",
    },
    log,
  });
  const baselines: Baseline[] = [];
  try {
    const http = httpClient(service.origin, CONCURRENCY * 2);
    const user = await connectedPartnerUser();
    const bearer = () => ({ Authorization: `Bearer ${user.key}`, ...fromSomeone() });
    const accountId = user.stored.accountIds[0] ?? "";
    const transactionsPath = `/api/accounts/${accountId}/transactions?limit=100`;

    const codes: { code: string; verifier: string }[] = [];
    const mint = async (count: number) => {
      for (let i = 0; i < count; i += 16) {
        await Promise.all(
          Array.from({ length: Math.min(16, count - i) }, async () => {
            const verifier = newVerifier();
            const { code } = await issueCode(user.client, verifier);
            codes.push({ code, verifier });
          }),
        );
      }
    };
    log("minting authorization codes");
    await mint(short ? 400 : 3_000);
    const tokenRequest = (): HttpRequest | null => {
      const minted = codes.pop();
      if (!minted) return null;
      return {
        method: "POST",
        path: "/oauth/token",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Authorization: basicAuthorization(user.client.clientId, user.client.clientSecret),
          ...fromSomeone(),
        },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: minted.code,
          code_verifier: minted.verifier,
        }).toString(),
      };
    };

    const endpoints: { name: string; request: () => HttpRequest | null }[] = [
      {
        name: "GET /.well-known/oauth-authorization-server",
        request: () => ({
          path: "/.well-known/oauth-authorization-server",
          headers: fromSomeone(),
        }),
      },
      { name: "POST /oauth/token (code exchange)", request: tokenRequest },
      { name: "GET /api/accounts", request: () => ({ path: "/api/accounts", headers: bearer() }) },
      {
        name: "GET /api/accounts/{id}/transactions (100)",
        request: () => ({ path: transactionsPath, headers: bearer() }),
      },
    ];

    // The bare baseline answers each path with the service's own bytes.
    const bodies: Record<string, string> = {};
    for (const endpoint of endpoints) {
      const request = endpoint.request();
      if (!request) continue;
      const answer = await http(request);
      if (answer.status !== 200) throw new Error(`${endpoint.name} answered ${answer.status}`);
      bodies[request.path.split("?")[0] ?? ""] = answer.body;
    }

    log("starting the baselines");
    const bare = await startBareBaseline(bodies);
    baselines.push(bare);
    const constant = await startConstantNext(log);
    baselines.push(constant);
    const bareHttp = httpClient(bare.origin, CONCURRENCY * 2);
    const constantHttp = httpClient(constant.origin, CONCURRENCY * 2);
    const constantRequest = () => ({ path: "/constant" });

    const rows: Row[] = [];
    const timed = { durationMs: DURATION_MS, concurrency: CONCURRENCY };
    const warm = { durationMs: WARMUP_MS, concurrency: CONCURRENCY };
    for (const endpoint of endpoints) {
      log(`measuring ${endpoint.name}`);
      // The bare server answers any body: its token requests need no fresh code.
      const sameAsService =
        endpoint.request === tokenRequest ? () => BARE_TOKEN_REQUEST : endpoint.request;
      if (endpoint.request !== tokenRequest) await measure(http, endpoint.request, warm);
      const serviceRun = await measure(http, endpoint.request, timed);
      await measure(bareHttp, sameAsService, warm);
      const bareRun = await measure(bareHttp, sameAsService, timed);
      await measure(constantHttp, constantRequest, warm);
      const constantRun = await measure(constantHttp, constantRequest, timed);
      if (serviceRun.failed > 0) throw new Error(`${endpoint.name}: ${serviceRun.failed} failed`);
      rows.push({
        name: endpoint.name,
        concurrency: CONCURRENCY,
        service: serviceRun,
        bare: bareRun,
        constant: constantRun,
      });
    }

    log(`measuring ${SYNC_SAMPLES} sync(s) of a two-year-old shop account`);
    const syncLatencies = new Latencies();
    let synced = 0;
    const syncStarted = performance.now();
    for (let i = 0; i < SYNC_SAMPLES; i += 1) {
      const shop = await connectShop(user.keys.publicKeyRawB64, user.tenantId);
      await forgetHistory(shop.stored);
      const answer = await http({
        method: "POST",
        path: `/api/accounts/${shop.stored.accountIds[0]}/sync`,
        headers: { ...bearer(), "Content-Type": "application/json" },
        body: JSON.stringify({ uid: shop.session.accounts[0]?.uid }),
      });
      if (answer.status !== 200) throw new Error(`sync answered ${answer.status} ${answer.body}`);
      synced += (JSON.parse(answer.body) as { newTransactions?: number }).newTransactions ?? 0;
      syncLatencies.add(answer.ms);
      bodies["/sync"] = answer.body;
    }
    const syncSeconds = (performance.now() - syncStarted) / 1000;
    const one = { durationMs: DURATION_MS, concurrency: 1 };
    const syncBare = () => ({ method: "POST", path: "/sync", body: "{}" });
    rows.push({
      name: `POST /api/accounts/{id}/sync (${Math.round(synced / SYNC_SAMPLES)} new transactions)`,
      concurrency: 1,
      service: {
        rps: SYNC_SAMPLES / syncSeconds,
        p50: syncLatencies.percentile(50),
        p99: syncLatencies.percentile(99),
        count: SYNC_SAMPLES,
        failed: 0,
      },
      bare: await measure(bareHttp, syncBare, one),
      constant: await measure(constantHttp, constantRequest, one),
    });

    log("weighing the flow screens");
    const screens = await screenWeights(http, user.client);
    const emptyPage = await constantHttp({ path: "/empty" });
    const empty = await weighHtml(constantHttp, emptyPage.body);

    const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? "CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
    const report = [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}; ${short ? "short form" : `${DURATION_MS / 1000} s per measurement`}, production build, PostgreSQL 15 and Redis on the same machine.`,
      "",
      table(rows),
      "",
      `Sync: ${synced} new transactions in ${fixed(syncSeconds, 1)} s (${Math.round(synced / syncSeconds)} transactions/s).`,
      "",
      "JavaScript a current browser loads on a first visit (`nomodule` polyfills, which it skips, left out), beside an empty Next.js page of the constant app:",
      "",
      "| Flow screen | Status | Script files | JS bytes | JS gzip | Gzip over the empty page | Inline script bytes |",
      "|---|--:|--:|--:|--:|--:|--:|",
      `| empty Next.js page | ${emptyPage.status} | ${empty.files} | ${empty.rawBytes} | ${empty.gzipBytes} | 0 | ${empty.inlineBytes} |`,
      ...screens.map(
        (screen) =>
          `| ${screen.screen} | ${screen.status} | ${screen.files} | ${screen.rawBytes} | ${screen.gzipBytes} | ${screen.gzipBytes - empty.gzipBytes} | ${screen.inlineBytes} |`,
      ),
    ].join("\n");
    console.log(`\n${report}\n`);
    await writeFile(path.join(dataDir(), "bench-latest.md"), `${report}\n`);
    log("written to .data/bench-latest.md");
  } finally {
    for (const baseline of baselines) await baseline.stop();
    await service.stop();
    await redis.close();
    await disconnectDb().catch(() => undefined);
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
