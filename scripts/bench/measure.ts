import { performance } from "node:perf_hooks";
import { Latencies, runWorkers, type HttpClient, type HttpRequest } from "../lib/load-client";
import { cpuUsedBetween, processTreeCpu } from "./process-cpu";

/** The middle value (the mean of the middle two of an even count); 0 for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/**
 * One measurement: requests at a fixed concurrency for a fixed time, with
 * requests/s, p50/p99 latency, the statuses seen and, when the measured
 * server's process id is known, its CPU milliseconds per request.
 */

export interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  count: number;
  /** Answers with a status of 400 or more. */
  failed: number;
  /** Requests sent again after their kept-alive connection was closed unread (httpClient). */
  retried: number;
  statuses: number[];
  cpuMs?: number;
  /** The database server's CPU milliseconds per request (all its processes, whatever they did). */
  databaseCpuMs?: number;
  /**
   * The share of one core the load generator (this process) was busy: near
   * 1, the client, not the server, set the pace, and the row says so.
   */
  clientBusy: number;
  /** CLOCK_MONOTONIC microseconds (the clock of V8 CPU profiles), for profile-summary.ts. */
  window: { startUs: number; endUs: number };
}

export interface MeasureOptions {
  durationMs: number;
  concurrency: number;
  maxRequests?: number;
  pid?: number;
  /** The database server's process id, to count its CPU per request. */
  databasePid?: number;
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * What one or several parts of a measurement counted together: a server
 * measured in slices, alternating with its baseline (run.ts), is summed over
 * its slices as if measured at once.
 */
export class Tally {
  readonly latencies = new Latencies();
  readonly statuses = new Set<number>();
  failed = 0;
  retried = 0;
  seconds = 0;
  clientCpuMs = 0;
  /** Null once a part could not read a process's CPU. */
  cpuMs: number | null = 0;
  databaseCpuMs: number | null = 0;
  startUs: number | null = null;
  endUs = 0;

  result(): Measurement {
    const count = this.latencies.count;
    return {
      clientBusy: this.clientCpuMs / (this.seconds * 1000),
      rps: count / this.seconds,
      p50: this.latencies.percentile(50),
      p99: this.latencies.percentile(99),
      count,
      failed: this.failed,
      retried: this.retried,
      statuses: [...this.statuses].sort(),
      ...(this.cpuMs !== null && count > 0 ? { cpuMs: this.cpuMs / count } : {}),
      ...(this.databaseCpuMs !== null && count > 0
        ? { databaseCpuMs: this.databaseCpuMs / count }
        : {}),
      window: { startUs: this.startUs ?? this.endUs, endUs: this.endUs },
    };
  }
}

const addCpu = (
  total: number | null,
  before: Map<number, number> | null,
  after: Map<number, number> | null,
) =>
  total !== null && before !== null && after !== null
    ? total + cpuUsedBetween(before, after)
    : null;

/** Measures for `options.durationMs`; the figures are those of `tally`, which this part adds to. */
export async function measure(
  http: HttpClient,
  next: () => HttpRequest | null,
  options: MeasureOptions,
  tally = new Tally(),
): Promise<Measurement> {
  const { latencies, statuses } = tally;
  const countBefore = latencies.count;
  let exhausted = false;
  const cpuBefore = processTreeCpu(options.pid);
  const clientBefore = process.cpuUsage();
  const databaseBefore = processTreeCpu(options.databasePid);
  const startUs = monotonicUs();
  const started = performance.now();
  const stopAt = started + options.durationMs;
  await runWorkers(
    options.concurrency,
    () =>
      exhausted ||
      performance.now() >= stopAt ||
      latencies.count - countBefore >= (options.maxRequests ?? Infinity),
    async () => {
      const request = next();
      if (!request) {
        exhausted = true;
        return;
      }
      const answer = await http(request);
      latencies.add(answer.ms);
      statuses.add(answer.status);
      tally.retried += answer.retries;
      if (answer.status >= 400) tally.failed += 1;
    },
  );
  tally.seconds += (performance.now() - started) / 1000;
  tally.endUs = monotonicUs();
  tally.startUs ??= startUs;
  const client = process.cpuUsage(clientBefore);
  tally.clientCpuMs += (client.user + client.system) / 1000;
  tally.cpuMs = addCpu(tally.cpuMs, cpuBefore, processTreeCpu(options.pid));
  tally.databaseCpuMs = addCpu(
    tally.databaseCpuMs,
    databaseBefore,
    processTreeCpu(options.databasePid),
  );
  return tally.result();
}

export const fixed = (value: number | undefined, digits = 1) =>
  value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : "–";

/** Two significant digits: ratios and slow rates stay readable however small. */
export const significant = (value: number | undefined) =>
  value !== undefined && Number.isFinite(value)
    ? value >= 10
      ? value.toFixed(1)
      : value.toPrecision(2)
    : "–";

export interface Row {
  name: string;
  concurrency: number;
  service: Measurement;
  /** The baseline that does the same work against the same database, when there is one. */
  database?: { name: string; run: Measurement };
  bare: Measurement;
  constant: Measurement;
  /** Said instead of figures when the service's answer is a refusal (a 400 by design). */
  note?: string;
}

const ratio = (service: Measurement, baseline: Measurement | undefined) =>
  baseline ? significant(service.rps / baseline.rps) : "–";

/** The table's heading (two lines): tableRow's lines follow it. */
export const TABLE_HEADING = [
  "| Endpoint | Conc. | Service req/s | p50 ms | p99 ms | CPU ms/req | Same-work baseline | req/s | p50 ms | p99 ms | CPU ms/req | Service ÷ same-work | Bare Node (constant) req/s | Service ÷ bare | Next constant req/s | Service ÷ Next |",
  "|---|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
].join("\n");

/** One row of the table, printed as soon as the row is measured. */
export function tableRow({ name, concurrency, service, database, bare, constant, note }: Row) {
  const db = database?.run;
  return [
    "",
    note ? `${name} (${note})` : name,
    concurrency,
    significant(service.rps),
    fixed(service.p50),
    fixed(service.p99),
    fixed(service.cpuMs, 2),
    database?.name ?? "–",
    db ? significant(db.rps) : "–",
    fixed(db?.p50),
    fixed(db?.p99),
    fixed(db?.cpuMs, 2),
    ratio(service, db),
    fixed(bare.rps, 0),
    ratio(service, bare),
    fixed(constant.rps, 0),
    ratio(service, constant),
    "",
  ]
    .join(" | ")
    .trim();
}

export function table(rows: Row[]): string {
  return [TABLE_HEADING, ...rows.map(tableRow)].join("\n");
}
