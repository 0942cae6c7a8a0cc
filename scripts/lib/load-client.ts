import http from "node:http";
import { performance } from "node:perf_hooks";

/**
 * The load generator shared by the load/fault run and the benchmarks: plain
 * Node HTTP with keep-alive (light enough that the client is not what is
 * measured), fixed-concurrency workers, and latency percentiles.
 */

export interface HttpRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

export type HttpClient = (request: HttpRequest) => Promise<HttpAnswer>;

export function httpClient(origin: string, maxSockets = 64, timeoutMs = 60_000): HttpClient {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const base = new URL(origin);
  return async (request) => {
    const started = performance.now();
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const answer = await exchange(
      {
        agent,
        hostname: base.hostname,
        port: base.port,
        method: request.method ?? "GET",
        path: request.path,
        headers: { ...request.headers, ...(body && { "Content-Length": body.length }) },
        timeout: timeoutMs,
      },
      body,
      `no answer in ${timeoutMs} ms`,
    );
    return { ...answer, ms: performance.now() - started };
  };
}

/**
 * One request with Node's http (its `timeout` option bounds the wait for the
 * answer): the answer's status, headers and body as text.
 */
export async function exchange(
  options: http.RequestOptions,
  body: Buffer | undefined,
  timeoutMessage: string,
): Promise<Omit<HttpAnswer, "ms">> {
  const answer = await exchangeBytes(options, body, timeoutMessage);
  return { ...answer, body: answer.body.toString("utf8") };
}

/**
 * The same with the body as the bytes received (a gzip body undecoded).
 * `options.path` is sent as written: a URL string would have its dot
 * segments resolved by the client.
 */
export function exchangeBytes(
  options: http.RequestOptions,
  body: Buffer | undefined,
  timeoutMessage = "no answer",
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(options, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
        }),
      );
      response.on("error", reject);
    });
    outgoing.on("timeout", () => outgoing.destroy(new Error(timeoutMessage)));
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** Latency samples in milliseconds. */
export class Latencies {
  private readonly samples: number[] = [];
  private sorted = true;

  add(ms: number): void {
    this.samples.push(ms);
    this.sorted = false;
  }

  get count(): number {
    return this.samples.length;
  }

  percentile(p: number): number {
    if (this.samples.length === 0) return Number.NaN;
    if (!this.sorted) {
      this.samples.sort((a, b) => a - b);
      this.sorted = true;
    }
    const index = Math.min(this.samples.length - 1, Math.ceil((p / 100) * this.samples.length) - 1);
    return this.samples[Math.max(0, index)] ?? Number.NaN;
  }
}

/**
 * Runs `concurrency` workers, each calling `task` in a loop until `until()`
 * says stop. A task's exception stops the run and is rethrown.
 */
export async function runWorkers(
  concurrency: number,
  until: () => boolean,
  task: (worker: number) => Promise<void>,
): Promise<void> {
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (!until()) await task(worker);
    }),
  );
}

/**
 * A distinct client address per simulated user (198.18.0.0/15, the range set
 * aside for benchmarking), as the one trusted proxy in front would forward it.
 */
export function forwardedFor(index: number): Record<string, string> {
  return { "X-Forwarded-For": `198.18.${(index >> 8) & 255}.${index & 255}` };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
