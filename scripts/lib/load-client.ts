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
  /** 1 when the request was sent again on a new connection (httpClient), else 0. */
  retries: number;
}

export type HttpClient = (request: HttpRequest) => Promise<HttpAnswer>;

/**
 * How long a kept-alive connection may sit idle in the client's pool: well
 * under the 5 s after which Node's servers (the service, the baselines) close
 * an idle connection, so the client closes first. A request sent on a
 * connection the server was closing at that instant is reset without an
 * answer; a pause longer than the servers' timeout (a row's other server
 * measured in between, a database settling) made that happen.
 */
export const CLIENT_IDLE_MS = 2_000;

/** A reset of a kept-alive connection before any answer: the server had closed it. */
const resetBeforeAnswer = (error: unknown, reused: boolean) =>
  reused && ["ECONNRESET", "EPIPE"].includes((error as NodeJS.ErrnoException | null)?.code ?? "");

export function httpClient(origin: string, maxSockets = 64, timeoutMs = 60_000): HttpClient {
  // `timeout` is the idle limit of a pooled connection (a request sets its own while it runs).
  const agent = new http.Agent({ keepAlive: true, maxSockets, timeout: CLIENT_IDLE_MS });
  const base = new URL(origin);
  return async (request) => {
    const started = performance.now();
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const options: http.RequestOptions = {
      agent,
      hostname: base.hostname,
      port: base.port,
      method: request.method ?? "GET",
      path: request.path,
      headers: { ...request.headers, ...(body && { "Content-Length": body.length }) },
      timeout: timeoutMs,
    };
    const reused = { socket: false };
    const timeout = `no answer in ${timeoutMs} ms`;
    try {
      const answer = await exchange(options, body, timeout, reused);
      return { ...answer, ms: performance.now() - started, retries: 0 };
    } catch (error) {
      // The server closed that connection before reading the request (it answered nothing on
      // it): the request is sent once more, on a new connection, and counted as retried.
      if (!resetBeforeAnswer(error, reused.socket)) throw error;
      const answer = await exchange(options, body, timeout);
      return { ...answer, ms: performance.now() - started, retries: 1 };
    }
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
  reused?: { socket: boolean },
): Promise<Omit<HttpAnswer, "ms" | "retries">> {
  const answer = await exchangeBytes(options, body, timeoutMessage, reused);
  return { ...answer, body: answer.body.toString("utf8") };
}

/**
 * The same with the body as the bytes received (a gzip body undecoded).
 * `options.path` is sent as written: a URL string would have its dot
 * segments resolved by the client. `reused.socket` tells, once the request
 * failed, whether it went out on a kept-alive connection.
 */
export function exchangeBytes(
  options: http.RequestOptions,
  body: Buffer | undefined,
  timeoutMessage = "no answer",
  reused?: { socket: boolean },
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
    outgoing.on("error", (error) => {
      if (reused) reused.socket = outgoing.reusedSocket;
      reject(error);
    });
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
