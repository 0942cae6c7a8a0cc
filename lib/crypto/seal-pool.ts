import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { parseRawPublicKey, sealingCrypto, sealPlaintexts } from "./envelope";
import { nativeAgreement } from "./p256-agree";

/**
 * Sealing on every core. A sync seals one envelope per stored value, and
 * each costs two P-256 scalar multiplications: on one thread that is most
 * of a large sync's time, and it would hold the event loop that every other
 * request needs. The pool runs `sealPlaintexts` in worker threads, one per
 * core, each taking chunks of plaintexts from a shared queue; the main
 * thread only sends text and receives base64 text (structured clone of
 * strings, measured by `npm run bench:sync`: a small fraction of the
 * sealing itself).
 *
 * The workers run `sealPlaintexts` from its source text (`eval`), so they
 * need no file of their own next to the bundled server code; they load the
 * native key agreement themselves when the main thread found it working
 * (lib/crypto/p256-agree.ts).
 */

/** Plaintexts per message to a worker: large enough that the round trip is noise. */
export const SEAL_CHUNK = 256;
/** Below this, sealing inline costs less than the trip to a worker. */
const INLINE_BELOW = 32;
/**
 * A worker idle this long exits (each holds an isolate of its own, some
 * 10-20 MB resident): an instance between syncs holds no sealing threads,
 * and the next sync starts them again in a few milliseconds.
 */
export const SEAL_WORKER_IDLE_MS = 30_000;

const WORKER_SOURCE = `
const { createECDH, createHmac, createCipheriv, randomBytes } = require("node:crypto");
const { parentPort, workerData } = require("node:worker_threads");
const agree = workerData.agreeModule ? require(workerData.agreeModule).agree : null;
const sealingCrypto = { createECDH, createHmac, createCipheriv, randomBytes, agree };
const sealPlaintexts = (${sealPlaintexts.toString()});
parentPort.on("message", (job) => {
  try {
    parentPort.postMessage({ id: job.id, envelopes: sealPlaintexts(sealingCrypto, job.recipient, job.plaintexts) });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String(error && error.message || error) });
  }
});
`;

interface Job {
  id: number;
  recipient: Uint8Array;
  plaintexts: readonly string[];
  resolve(envelopes: string[]): void;
  reject(error: Error): void;
}

interface PoolWorker {
  worker: Worker;
  job: Job | null;
  idleTimer?: NodeJS.Timeout;
}

interface Pool {
  size: number;
  workers: PoolWorker[];
  queue: Job[];
  nextId: number;
}

/** One pool per process (on globalThis: Next's dev reloads must not start more). */
const state = globalThis as { bankConnectSealPool?: Pool };

/**
 * The CPUs a cgroup v2 quota gives this process (`cpu.max`, as a container's
 * CPU limit sets it), or null without one: Node's availableParallelism counts
 * the host's cores, and a pod limited to one CPU on a 32-core node would
 * otherwise start 32 workers that only contend for that one CPU and each
 * hold memory.
 */
export function cgroupCpuLimit(cpuMax: string | null = readCpuMax()): number | null {
  const [quota, period] = (cpuMax ?? "").trim().split(/\s+/);
  if (!quota || quota === "max" || !period) return null;
  const cpus = Number(quota) / Number(period);
  return Number.isFinite(cpus) && cpus > 0 ? Math.max(1, Math.ceil(cpus)) : null;
}

function readCpuMax(): string | null {
  try {
    return readFileSync("/sys/fs/cgroup/cpu.max", "utf8");
  } catch {
    return null;
  }
}

/** Workers in the pool: one per core the process may use (its container's CPU limit included). */
export function sealPoolSize(): number {
  const cores = availableParallelism();
  return Math.max(1, Math.min(cores, cgroupCpuLimit() ?? cores));
}

function pool(): Pool {
  return (state.bankConnectSealPool ??= {
    size: sealPoolSize(),
    workers: [],
    queue: [],
    nextId: 1,
  });
}

function startWorker(current: Pool): PoolWorker {
  const workerData = { agreeModule: nativeAgreement()?.modulePath ?? null };
  const entry: PoolWorker = {
    worker: new Worker(WORKER_SOURCE, { eval: true, workerData }),
    job: null,
  };
  // An idle worker must not keep a script or a test run alive.
  entry.worker.unref();
  entry.worker.on("message", (message: { id: number; envelopes?: string[]; error?: string }) => {
    const job = entry.job;
    if (!job || job.id !== message.id) return;
    entry.job = null;
    entry.worker.unref();
    if (message.envelopes) job.resolve(message.envelopes);
    else job.reject(new Error(`sealing failed in a worker: ${message.error ?? "unknown"}`));
    dispatch(current);
    if (entry.job === null) {
      entry.idleTimer = setTimeout(() => {
        const index = current.workers.indexOf(entry);
        if (entry.job !== null || index === -1) return;
        // Out of the pool first: no job can be given to a worker on its way out.
        current.workers.splice(index, 1);
        void entry.worker.terminate();
      }, SEAL_WORKER_IDLE_MS);
      entry.idleTimer.unref();
    }
  });
  const fail = (error: Error) => {
    const index = current.workers.indexOf(entry);
    if (index === -1) return;
    current.workers.splice(index, 1);
    const job = entry.job;
    entry.job = null;
    job?.reject(error);
    dispatch(current);
  };
  entry.worker.on("error", fail);
  entry.worker.on("exit", (code) => fail(new Error(`a sealing worker exited (${code})`)));
  current.workers.push(entry);
  return entry;
}

function dispatch(current: Pool): void {
  while (current.queue.length > 0) {
    let idle = current.workers.find((entry) => entry.job === null);
    if (!idle && current.workers.length < current.size) idle = startWorker(current);
    if (!idle) return;
    const job = current.queue.shift();
    if (!job) return;
    idle.job = job;
    clearTimeout(idle.idleTimer);
    idle.worker.ref();
    idle.worker.postMessage({ id: job.id, recipient: job.recipient, plaintexts: job.plaintexts });
  }
}

function sealChunk(recipient: Uint8Array, plaintexts: readonly string[]): Promise<string[]> {
  const current = pool();
  return new Promise((resolve, reject) => {
    current.queue.push({ id: current.nextId++, recipient, plaintexts, resolve, reject });
    dispatch(current);
  });
}

/**
 * The plaintexts per message for a batch of `count`: at most SEAL_CHUNK, in
 * equal parts, and spread over every worker when there are enough for each
 * to get INLINE_BELOW or more (200 plaintexts go to two workers as two
 * hundreds, not as one chunk that leaves the other worker idle).
 */
export function chunkSize(count: number, workers: number): number {
  const chunks = Math.max(
    Math.ceil(count / SEAL_CHUNK),
    Math.min(workers, Math.floor(count / INLINE_BELOW)),
    1,
  );
  return Math.ceil(count / chunks);
}

/**
 * Seals every plaintext (compact JSON text, see `toPlaintext`) to the raw
 * P-256 point, each with a fresh ephemeral key and nonce; the envelopes come
 * back in the order of the plaintexts.
 */
export async function sealAll(
  recipientPublicKeyRawB64: string,
  plaintexts: readonly string[],
): Promise<string[]> {
  const recipient = parseRawPublicKey(recipientPublicKeyRawB64);
  if (plaintexts.length < INLINE_BELOW)
    return sealPlaintexts(sealingCrypto(), recipient, plaintexts);
  const chunks: Promise<string[]>[] = [];
  const size = chunkSize(plaintexts.length, pool().size);
  for (let start = 0; start < plaintexts.length; start += size) {
    chunks.push(sealChunk(recipient, plaintexts.slice(start, start + size)));
  }
  return (await Promise.all(chunks)).flat();
}

/** The sealing workers running now (started on demand, gone after SEAL_WORKER_IDLE_MS idle). */
export function sealPoolWorkers(): number {
  return state.bankConnectSealPool?.workers.length ?? 0;
}

/** Stops the workers (tests and scripts that measure a cold pool). */
export async function stopSealPool(): Promise<void> {
  const current = state.bankConnectSealPool;
  state.bankConnectSealPool = undefined;
  if (!current) return;
  current.size = 0;
  for (const job of current.queue.splice(0)) job.reject(new Error("the sealing pool stopped"));
  await Promise.all(current.workers.map((entry) => entry.worker.terminate()));
}
