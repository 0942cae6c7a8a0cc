import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { cpus, loadavg, totalmem } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { disconnectDb } from "../../lib/db/client";
import { getEnv } from "../../lib/env";
import { connectedPartnerUser } from "../../test/bank-data";
import { issueCode, newVerifier, basicAuthorization } from "../../test/oauth-fixtures";
import { dataDir } from "../lib/database";
import { ensureDatabase, withDatabase } from "../lib/embedded-postgres";
import {
  forwardedFor,
  httpClient,
  Latencies,
  type HttpClient,
  type HttpRequest,
} from "../lib/load-client";
import { startService } from "../lib/service-process";
import { startRunRedis } from "../load/redis";
import {
  startBareBaseline,
  startBarePg,
  startConstantNext,
  startOidcProvider,
  type Baseline,
} from "./baselines";
import { MAX_OFFSET } from "../../lib/api/paging";
import {
  approveToConsent,
  summarizeApprovals,
  type ApproveSummary,
  type ApproveTiming,
} from "./approve";
import { BIG_ACCOUNT_ROWS, seedBigAccount } from "./big-account";
import { describeMemory, mebibytes, processTreeMemory, watchPeakMemory } from "./memory";
import {
  fixed,
  measure,
  table,
  TABLE_HEADING,
  tableRow,
  Tally,
  type Measurement,
  type Row,
} from "./measure";
import { BENCH_CLIENT } from "./oidc-provider/client";
import { screenWeights, weighHtml } from "./screens";
import { databaseServerPid, settleDatabase } from "./settle";
import { connectShop, forgetHistory } from "./shop";

/**
 * Benchmarks (prints a table, asserts nothing):
 *
 *   npm run bench                    10 s per measurement, every row
 *   npm run bench -- --short         a quick pass (what `npm test` runs, to keep the script working)
 *   npm run bench -- --only=token    only the rows whose name contains a word
 *                                    (`approve`: Approve → consent; `sync`: the sync row)
 *   npm run bench -- --cpu-prof      a V8 profile of the service (scripts/bench/profile-summary.ts)
 *
 * Requests/s, p50/p99 at a fixed concurrency and the server's CPU time per
 * request for discovery, the token exchange, GET /api/accounts and
 * transactions pages (also on a 1 000 000-transaction account, first page,
 * by cursor at depth 999 900 and by offset), and a sync of about 10 000 new
 * transactions, each next to baselines measured in the same run on the same
 * machine (scripts/bench/baselines.ts); a row's service and its same-work
 * baseline are measured in alternating slices. Then the time from the sandbox bank's
 * Approve to the consent screen for a personal and a business account
 * (scripts/bench/approve.ts), with the ingest's transactions/s, and the
 * JavaScript each flow screen ships. The service runs its production build with PostgreSQL and Redis;
 * every simulated client has its own address (one trusted proxy hop). Each row is printed, and
 * appended to .data/bench-latest.md, as soon as it is measured.
 */

const short = process.argv.includes("--short");
const only = process.argv
  .find((arg) => arg.startsWith("--only="))
  ?.slice(7)
  .split(",");
const cpuProfile = process.argv.includes("--cpu-prof");
const DURATION_MS = short ? 1_500 : 10_000;
const WARMUP_MS = short ? 300 : 2_000;
/** A row's service and same-work baseline take turns this many times (runAlternating). */
const ALTERNATING_SLICES = short ? 2 : 4;
const CONCURRENCY = 16;
const SYNC_SAMPLES = short ? 1 : 3;
const APPROVE_SAMPLES = Number(
  process.argv.find((arg) => /^--approvals=\d+$/.test(arg))?.slice(12) ?? (short ? 1 : 3),
);
const APPROVE_BANKS = [
  [
    "personal: Sandbox Nordbank DK",
    { name: "Sandbox Nordbank DK", country: "DK", psuType: "personal" },
  ],
  [
    "business: Sandbox Handelsbank DK (a shop)",
    { name: "Sandbox Handelsbank DK", country: "DK", psuType: "business" },
  ],
] as const;
const WARM_CODES = short ? 50 : 300;
/** The most codes minted for one slice of the token row (the short run's: its old total). */
const SLICE_CODES = short ? 200 : 6_000;
const BIG_ROWS = short ? 20_000 : BIG_ACCOUNT_ROWS;
const DEEP = BIG_ROWS - 100;
/** An offset past the deepest one served (the short run's account is small). */
const REFUSED_OFFSET = Math.max(DEEP, MAX_OFFSET + 1);
const log = (line: string) => console.log(`[bench] ${line}`);

const BIG_ROW_NAMES = [
  `Transactions page 1 (100) of a ${BIG_ROWS}-transaction account`,
  `… the page at depth ${DEEP} by cursor`,
  `… the page at offset ${MAX_OFFSET}, the deepest offset`,
  `… offset ${REFUSED_OFFSET}`,
];

let sequence = 0;
const fromSomeone = () => forwardedFor(sequence++);

interface Server {
  http: HttpClient;
  pid: number | undefined;
}

type Minted = { code: string; verifier: string };

/**
 * Authorization codes (they live 300 s), minted just before the warm-up or
 * the slice that spends them, and spent oldest first.
 */
class CodePool {
  private readonly codes: Minted[] = [];
  constructor(private readonly mint: (count: number) => Promise<Minted[]>) {}

  /** Mints what is missing for `count` unspent codes. */
  async fill(count: number): Promise<void> {
    const missing = count - this.codes.length;
    if (missing > 0) this.codes.push(...(await this.mint(missing)));
  }

  take(): Minted | undefined {
    return this.codes.shift();
  }
}

/** One server of a row, with the codes its requests spend (the token row). */
interface Part {
  server: Server;
  request: () => HttpRequest | null;
  codes?: CodePool;
}

interface Endpoint {
  name: string;
  request: () => HttpRequest | null;
  codes?: CodePool;
  /** The same work done by another server (against the same database, for the data rows). */
  same?: { name: string } & Part;
  /** The same-work baseline is the bare Node server answering the service's bytes. */
  sameBytes?: boolean;
  /** Codes are spent: warm up on a few, not for a duration. */
  spends?: boolean;
  /** The status the service is meant to answer (a deep offset is refused by design). */
  status?: number;
  note?: string;
}

/** CPU per request of the server and of PostgreSQL, and how busy the load generator was. */
const describeCpu = (run: Measurement) =>
  `${fixed(run.cpuMs, 2)} ms CPU each, PostgreSQL ${fixed(run.databaseCpuMs, 2)} ms, ` +
  `load generator ${(100 * run.clientBusy).toFixed(0)}% busy`;

const popper = (codes: CodePool, build: (c: Minted) => HttpRequest) => () => {
  const minted = codes.take();
  return minted ? build(minted) : null;
};

/** Requests the load client sent again on a new connection (load-client.ts, httpClient). */
const retriedNote = (service: Measurement, baseline?: Measurement) =>
  service.retried + (baseline?.retried ?? 0) > 0
    ? `; sent again after a closed kept-alive connection: ${service.retried} to the service` +
      (baseline ? `, ${baseline.retried} to the baseline` : "")
    : "";

const tokenForm = (code: string, verifier: string) =>
  new URLSearchParams({
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
  }).toString();

async function main() {
  const redis = await startRunRedis();
  const startLoad = loadavg();
  const service = await startService({
    label: "bench",
    settings: {
      REDIS_URL: redis.url,
      LOG_LEVEL: "warn",
      // The sync row measures two years of a shop's history on whatever machine runs it; the
      // sync deadline (docs/capacity.md) is not what is measured, so it must not cut it short.
      SYNC_DEADLINE_SECONDS: "600",
    },
    ...(cpuProfile
      ? { nodeFlags: ["--cpu-prof", `--cpu-prof-dir=${path.join(dataDir(), "cpu-prof")}`] }
      : {}),
    log,
  });
  const baselines: Baseline[] = [];
  // The whole service (the launcher and every process it started), as a memory limit sees it.
  const startMemory = processTreeMemory(service.pid);
  const peakMemory = watchPeakMemory(service.pid);
  log(
    `first 200 answer ${fixed(service.readyMs / 1000, 1)} s after spawning npm start's launcher; ` +
      `resident ${describeMemory(startMemory)}`,
  );
  try {
    const http = httpClient(service.origin, CONCURRENCY * 2);
    const serviceServer = { http, pid: service.pid };
    const user = await connectedPartnerUser();
    const bearer = () => ({ Authorization: `Bearer ${user.key}`, ...fromSomeone() });
    const accountId = user.stored.accountIds[0] ?? "";

    // The paging rows' account, seeded only when one of them is measured.
    const owner = await connectedPartnerUser();
    const bigBearer = () => ({ Authorization: `Bearer ${owner.key}`, ...fromSomeone() });
    let bigPath = "";
    let deepCursor = "";
    if (!only || only.some((word) => BIG_ROW_NAMES.some((name) => name.includes(word)))) {
      log(`seeding a ${BIG_ROWS}-transaction account`);
      const big = await seedBigAccount(service.databaseUrl, owner.tenantId, log, BIG_ROWS);
      bigPath = `/api/accounts/${big.accountId}/transactions`;
      deepCursor = await big.cursorAt(DEEP);
    }

    const codes = new CodePool(async (count) => {
      const minted: Minted[] = [];
      for (let i = 0; i < count; i += 16) {
        await Promise.all(
          Array.from({ length: Math.min(16, count - i) }, async () => {
            const verifier = newVerifier();
            const { code } = await issueCode(user.client, verifier);
            minted.push({ code, verifier });
          }),
        );
      }
      return minted;
    });

    log("starting the baselines");
    const { poolSize } = getEnv().database;
    const barePg = await startBarePg(service.databaseUrl, poolSize, getEnv().secretKey);
    baselines.push(barePg);
    const oidcDatabase = withDatabase(service.databaseUrl, "oidc_provider_bench");
    await ensureDatabase(withDatabase(service.databaseUrl, "postgres"), "oidc_provider_bench");
    const oidc = await startOidcProvider(oidcDatabase, poolSize);
    baselines.push(oidc);
    const oidcCodes = new CodePool(async (count) => {
      const minted: Minted[] = [];
      for (let i = 0; i < count; i += 500)
        minted.push(...(await oidc.mint(Math.min(500, count - i))));
      return minted;
    });
    const bareHttp = (origin: string) => httpClient(origin, CONCURRENCY * 2);
    const barePgServer = { http: bareHttp(barePg.origin), pid: barePg.pid };
    const oidcServer = { http: bareHttp(oidc.origin), pid: oidc.pid };

    const get = (requestPath: string, headers: () => Record<string, string>) => () => ({
      path: requestPath,
      headers: headers(),
    });
    const barePgGet = (requestPath: string, key: string) =>
      get(requestPath, () => ({ Authorization: `Bearer ${key}` }));
    const endpoints: Endpoint[] = [
      {
        name: "GET /.well-known/oauth-authorization-server",
        request: get("/.well-known/oauth-authorization-server", fromSomeone),
        sameBytes: true,
      },
      {
        name: "POST /oauth/token (code exchange)",
        spends: true,
        codes,
        request: popper(codes, ({ code, verifier }) => ({
          method: "POST",
          path: "/oauth/token",
          headers: {
            "Content-Type": "application/x-www-form-urlencoded",
            Authorization: basicAuthorization(user.client.clientId, user.client.clientSecret),
            ...fromSomeone(),
          },
          body: tokenForm(code, verifier),
        })),
        same: {
          name: "oidc-provider 9.13.3 (code + PKCE, PostgreSQL adapter)",
          server: oidcServer,
          codes: oidcCodes,
          request: popper(oidcCodes, ({ code, verifier }) => ({
            method: "POST",
            path: "/token",
            headers: {
              "Content-Type": "application/x-www-form-urlencoded",
              Authorization: basicAuthorization(BENCH_CLIENT.client_id, BENCH_CLIENT.client_secret),
            },
            body: tokenForm(code, verifier),
          })),
        },
      },
      {
        name: "GET /api/accounts",
        request: get("/api/accounts", bearer),
        same: {
          name: "bare Node + pg",
          server: barePgServer,
          request: barePgGet("/api/accounts", user.key),
        },
      },
      {
        name: "GET /api/accounts/{id}/transactions (100)",
        request: get(`/api/accounts/${accountId}/transactions?limit=100`, bearer),
        same: {
          name: "bare Node + pg",
          server: barePgServer,
          request: barePgGet(`/api/accounts/${accountId}/transactions?limit=100`, user.key),
        },
      },
      {
        name: BIG_ROW_NAMES[0] ?? "",
        request: get(`${bigPath}?limit=100`, bigBearer),
        same: {
          name: "bare Node + pg",
          server: barePgServer,
          request: barePgGet(`${bigPath}?limit=100`, owner.key),
        },
      },
      {
        name: BIG_ROW_NAMES[1] ?? "",
        request: get(`${bigPath}?limit=100&cursor=${deepCursor}`, bigBearer),
        same: {
          name: "bare Node + pg",
          server: barePgServer,
          request: barePgGet(`${bigPath}?limit=100&cursor=${deepCursor}`, owner.key),
        },
      },
      {
        name: BIG_ROW_NAMES[2] ?? "",
        request: get(`${bigPath}?limit=100&offset=${MAX_OFFSET}`, bigBearer),
        same: {
          name: "bare Node + pg",
          server: barePgServer,
          request: barePgGet(`${bigPath}?limit=100&offset=${MAX_OFFSET}`, owner.key),
        },
      },
      {
        name: BIG_ROW_NAMES[3] ?? "",
        request: get(`${bigPath}?limit=100&offset=${REFUSED_OFFSET}`, bigBearer),
        status: 400,
        note: "400, pointing to the cursor",
      },
    ].filter((endpoint) => !only || only.some((word) => endpoint.name.includes(word)));

    // The bare constant server answers each row with the service's own bytes.
    const bodies: Record<string, string> = {};
    for (const [index, endpoint] of endpoints.entries()) {
      const request = endpoint.spends ? null : endpoint.request();
      if (!request) continue;
      const answer = await http(request);
      if (answer.status !== (endpoint.status ?? 200)) {
        throw new Error(`${endpoint.name} answered ${answer.status} ${answer.body.slice(0, 200)}`);
      }
      bodies[`/row/${index}`] = answer.body;
      const same = endpoint.same?.request();
      if (same && endpoint.same?.server === barePgServer) {
        const theirs = await barePgServer.http(same);
        if (theirs.body !== answer.body) {
          throw new Error(`${endpoint.name}: the bare Node + pg baseline answered other bytes`);
        }
      }
    }
    log("the bare Node + pg baseline answers the service's bytes on every row it serves");
    const bare = await startBareBaseline(bodies);
    baselines.push(bare);
    const constant = await startConstantNext(log);
    baselines.push(constant);
    const bareServer = { http: bareHttp(bare.origin), pid: bare.pid };
    const constantServer = { http: bareHttp(constant.origin), pid: constant.pid };
    // A constant answer's same-work baseline: the bare server answering its bytes, alternated.
    for (const [index, endpoint] of endpoints.entries()) {
      if (endpoint.sameBytes) {
        endpoint.same = {
          name: "bare Node (the same bytes)",
          server: bareServer,
          request: () => ({ path: `/row/${index}` }),
        };
      }
    }

    const timed = { durationMs: DURATION_MS, concurrency: CONCURRENCY };
    const databasePid = await databaseServerPid(service.databaseUrl);
    const warm = { durationMs: WARMUP_MS, concurrency: CONCURRENCY };
    const settle = async () => {
      const settledMs = await settleDatabase(service.databaseUrl);
      if (settledMs > 500)
        log(`  waited ${(settledMs / 1000).toFixed(1)} s for autovacuum to finish`);
    };
    /**
     * Measures the servers for DURATION_MS each after a warm-up. Two servers
     * (the service and its same-work baseline) are measured in alternating
     * slices (A B B A …), so a change in the machine's load during the row
     * falls on both rather than on whichever went second.
     */
    const runAlternating = async (parts: Part[], spends = false): Promise<Measurement[]> => {
      await settle();
      const warmRates: number[] = [];
      for (const { server, request, codes: pool } of parts) {
        await pool?.fill(WARM_CODES);
        const warmUp = await measure(
          server.http,
          request,
          spends ? { ...warm, maxRequests: WARM_CODES } : warm,
        );
        warmRates.push(warmUp.rps);
      }
      const slices = parts.length > 1 ? ALTERNATING_SLICES : 1;
      const tallies = parts.map(() => new Tally());
      for (let slice = 0; slice < slices; slice += 1) {
        const order = parts.map((_, index) => index);
        if (slice % 2 === 1) order.reverse();
        for (const index of order) {
          const { server, request, codes: pool } = parts[index]!;
          // Half as many again as the warm-up's rate spends in a slice; a slice that spends
          // them all ends early, and its rate is that of the time it ran.
          const wanted = ((warmRates[index] ?? 0) * 1.5 * DURATION_MS) / slices / 1000;
          await pool?.fill(Math.min(SLICE_CODES, Math.ceil(wanted)));
          await measure(
            server.http,
            request,
            { ...timed, durationMs: DURATION_MS / slices, pid: server.pid, databasePid },
            tallies[index],
          );
        }
      }
      return tallies.map((tally) => tally.result());
    };
    const run = async (server: Server, request: () => HttpRequest | null) =>
      (await runAlternating([{ server, request }]))[0]!;
    const rows: Row[] = [];
    // Each row is printed and kept as soon as it is measured: a run that stops keeps them.
    const latest = path.join(dataDir(), "bench-latest.md");
    await writeFile(
      latest,
      `Rows as measured (a run that did not finish ends here), started ${new Date().toISOString()}:\n\n${TABLE_HEADING}\n`,
    );
    console.log(TABLE_HEADING);
    const finished = async (row: Row) => {
      rows.push(row);
      console.log(tableRow(row));
      await appendFile(latest, `${tableRow(row)}\n`);
    };
    const windows: { name: string; requests: number; startUs: number; endUs: number }[] = [];
    for (const [index, endpoint] of endpoints.entries()) {
      log(`measuring ${endpoint.name}`);
      const [serviceRun, sameRun] = await runAlternating(
        [
          {
            server: serviceServer,
            request: endpoint.request,
            ...(endpoint.codes ? { codes: endpoint.codes } : {}),
          },
          ...(endpoint.same ? [endpoint.same] : []),
        ],
        endpoint.spends,
      );
      if (!serviceRun) throw new Error(`${endpoint.name} was not measured`);
      windows.push({ name: endpoint.name, requests: serviceRun.count, ...serviceRun.window });
      const unexpected = serviceRun.statuses.filter(
        (status) => status !== (endpoint.status ?? 200),
      );
      if (unexpected.length > 0)
        throw new Error(`${endpoint.name} answered ${unexpected.join(", ")}`);
      const same =
        endpoint.same && sameRun ? { name: endpoint.same.name, run: sameRun } : undefined;
      if (same && same.run.failed > 0) throw new Error(`${same.name}: ${same.run.failed} failed`);
      const bareRequest = () => ({
        method: endpoint.spends ? "POST" : "GET",
        path: `/row/${index}`,
        body: endpoint.spends ? tokenForm("x", "y") : undefined,
      });
      await finished({
        name: endpoint.name,
        concurrency: CONCURRENCY,
        service: serviceRun,
        ...(same ? { database: same } : {}),
        // The bare server is measured once, alternated, when it is the same-work baseline.
        bare: endpoint.sameBytes && sameRun ? sameRun : await run(bareServer, bareRequest),
        constant: await run(constantServer, () => ({ path: "/constant" })),
        ...(endpoint.note ? { note: endpoint.note } : {}),
      });
      log(
        `  the service answered ${serviceRun.count} requests: ${describeCpu(serviceRun)}` +
          (same ? `; the baseline: ${describeCpu(same.run)}` : "") +
          retriedNote(serviceRun, same?.run),
      );
    }

    let syncLine = "";
    const approvals: { name: string; summary: ApproveSummary }[] = [];
    if (!only || only.includes("approve")) {
      log("measuring Approve → consent over HTTP");
      for (const [name, bank] of APPROVE_BANKS) {
        // Like every row's warm-up: the first connection of a process also compiles its code
        // paths (the bank's pages, the flow's screens); it is printed, not counted.
        await settle();
        const warmUp = await approveToConsent(http, service.origin, bank, fromSomeone);
        const timings: ApproveTiming[] = [];
        for (let i = 0; i < APPROVE_SAMPLES; i += 1) {
          // Each sample starts, like every row, with the maintenance the last writes left due done.
          await settle();
          timings.push(await approveToConsent(http, service.origin, bank, fromSomeone));
        }
        approvals.push({ name, summary: summarizeApprovals(timings) });
        log(
          `  ${name}: consent ${timings.map((t) => fixed(t.toConsentMs, 0)).join(", ")} ms; ` +
            `history ${timings.map((t) => fixed(t.toHistoryMs, 0)).join(", ")} ms ` +
            `(warm-up, not counted: ${fixed(warmUp.toConsentMs, 0)} and ${fixed(warmUp.toHistoryMs, 0)} ms)`,
        );
      }
    }
    if (!only || only.includes("sync")) {
      const sync = await measureSync(http, bearer, user, bareServer, constantServer);
      await finished(sync.row);
      syncLine = sync.line;
    }
    const screens = only
      ? []
      : (log("weighing the flow screens"), await screenWeights(http, user.client));
    const emptyPage = only ? null : await constantServer.http({ path: "/empty" });
    const empty = emptyPage ? await weighHtml(constantServer.http, emptyPage.body) : null;

    const endLoad = loadavg();
    const loadMemory = processTreeMemory(service.pid);
    peakMemory.stop();
    const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? "CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
    const report = [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}; ${short ? "short form" : `${DURATION_MS / 1000} s per measurement after a ${WARMUP_MS / 1000} s warm-up`}, production build, PostgreSQL 15 and Redis on the same machine. Load average ${startLoad[0]?.toFixed(1)} at the start, ${endLoad[0]?.toFixed(1)} at the end.`,
      "",
      table(rows),
      "",
      syncLine,
      "",
      `Start and memory: the first 200 answer ${fixed(service.readyMs / 1000, 1)} s after spawning the launcher (migrations checked, Next prepared). Resident memory of the service's processes: ${describeMemory(startMemory)} after start; ${describeMemory(loadMemory)} after the load above, ${mebibytes(peakMemory.peak())} at the highest (sampled every 0.5 s).`,
      "",
      ...(approvals.length > 0
        ? [
            `Approve at the bank → each screen, medians of ${APPROVE_SAMPLES} samples per bank after one warm-up connection each:`,
            "",
            "| Approve at the bank → | Progress screen ms | Consent screen ms | Whole history stored ms | Transactions | Ingest transactions/s |",
            "|---|--:|--:|--:|--:|--:|",
            ...approvals.map(
              ({ name, summary }) =>
                `| ${name} | ${fixed(summary.toProgressMs, 0)} | ${fixed(summary.toConsentMs, 0)} | ${fixed(summary.toHistoryMs, 0)} | ${summary.transactions} | ${Math.round(summary.ingestRate)} |`,
            ),
            "",
          ]
        : []),
      ...(emptyPage && empty
        ? [
            "JavaScript a current browser loads on a first visit (`nomodule` polyfills, which it skips, left out), beside an empty Next.js page of the constant app:",
            "",
            "| Flow screen | Status | Script files | JS bytes | JS gzip | Gzip over the empty page | Inline script bytes |",
            "|---|--:|--:|--:|--:|--:|--:|",
            `| empty Next.js page | ${emptyPage.status} | ${empty.files} | ${empty.rawBytes} | ${empty.gzipBytes} | 0 | ${empty.inlineBytes} |`,
            ...screens.map(
              (screen) =>
                `| ${screen.screen} | ${screen.status} | ${screen.files} | ${screen.rawBytes} | ${screen.gzipBytes} | ${screen.gzipBytes - empty.gzipBytes} | ${screen.inlineBytes} |`,
            ),
          ]
        : []),
    ].join("\n");
    console.log(`\n${report}\n`);
    await writeFile(path.join(dataDir(), "bench-latest.md"), `${report}\n`);
    log("written to .data/bench-latest.md");
    if (cpuProfile) {
      await mkdir(path.join(dataDir(), "cpu-prof"), { recursive: true });
      await writeFile(path.join(dataDir(), "cpu-prof", "windows.json"), JSON.stringify(windows));
    }
  } finally {
    for (const baseline of baselines) await baseline.stop();
    await service.stop();
    await redis.close();
    await disconnectDb().catch(() => undefined);
  }
}

async function measureSync(
  http: HttpClient,
  bearer: () => Record<string, string>,
  user: Awaited<ReturnType<typeof connectedPartnerUser>>,
  bare: Server,
  constant: Server,
): Promise<{ row: Row; line: string }> {
  log(`measuring ${SYNC_SAMPLES} sync(s) of a two-year-old shop account`);
  const latencies = new Latencies();
  let synced = 0;
  // The sync requests' own time: preparing each shop account (storing its first history in this
  // process, then forgetting part of it) is not the sync being measured.
  let syncMs = 0;
  const started = performance.now();
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
    latencies.add(answer.ms);
    syncMs += answer.ms;
  }
  const seconds = (performance.now() - started) / 1000;
  const one = { durationMs: DURATION_MS, concurrency: 1 };
  const service: Measurement = {
    rps: SYNC_SAMPLES / (syncMs / 1000),
    p50: latencies.percentile(50),
    p99: latencies.percentile(99),
    count: SYNC_SAMPLES,
    failed: 0,
    retried: 0,
    statuses: [200],
    clientBusy: 0,
    window: { startUs: 0, endUs: 0 },
  };
  return {
    row: {
      name: `POST /api/accounts/{id}/sync (${Math.round(synced / SYNC_SAMPLES)} new transactions)`,
      concurrency: 1,
      service,
      bare: await measure(bare.http, () => ({ method: "POST", path: "/sync", body: "{}" }), one),
      constant: await measure(constant.http, () => ({ path: "/constant" }), one),
    },
    line: `Sync: ${synced} new transactions in ${SYNC_SAMPLES} sync requests taking ${fixed(syncMs / 1000, 1)} s together (${Math.round(synced / (syncMs / 1000))} transactions/s fetched from the sandbox bank, sealed and stored; ${fixed(seconds, 1)} s with preparing the accounts between them).`,
  };
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
