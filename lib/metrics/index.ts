import client from "prom-client";

/**
 * The service's Prometheus metrics (docs/observability.md). One registry per
 * process, kept on globalThis: the HTTP server and Next's bundle of the route
 * handlers load this module separately, and both must count into the same
 * series. Each instance exposes its own counts; Prometheus adds them up.
 *
 * Labels are closed sets (route templates, error codes, reasons), never ids,
 * addresses or anything a client chose.
 */

export type FlowStepName =
  "started" | "signed_in" | "key_set_up" | "bank_connected" | "approved" | "cancelled" | "failed";

interface PoolView {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** One queue's counts, as the job queue reports them (lib/jobs/status.ts). */
export interface JobQueueDepth {
  queue: string;
  queued: number;
  active: number;
  failed: number;
}

/**
 * Where the queue depth gauge reads from: set by the process that runs the
 * job queue. On globalThis, like the registry: the module that made the
 * gauge may be another copy than the one the queue's starter loaded.
 */
const JOB_QUEUES_KEY = Symbol.for("bank-connect.metrics.job-queues");
const jobQueues = ((
  globalThis as { [JOB_QUEUES_KEY]?: { read: (() => Promise<JobQueueDepth[]>) | null } }
)[JOB_QUEUES_KEY] ??= { read: null });

function createMetrics() {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const pools = new Map<string, PoolView>();
  const poolGauge = (name: string, help: string, read: (pool: PoolView) => number) =>
    new client.Gauge({
      name,
      help,
      labelNames: ["pool"],
      registers: [registry],
      collect() {
        this.reset();
        for (const [pool, view] of pools) this.set({ pool }, read(view));
      },
    });
  return {
    registry,
    pools,
    requests: new client.Counter({
      name: "bank_connect_http_requests_total",
      help: "HTTP requests answered, by route template, method and status",
      labelNames: ["route", "method", "status"],
      registers: [registry],
    }),
    duration: new client.Histogram({
      name: "bank_connect_http_request_duration_seconds",
      help: "Time from the request's arrival to the end of its response, by route template",
      labelNames: ["route", "method"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    tokenExchanges: new client.Counter({
      name: "bank_connect_token_exchanges_total",
      help: "Authorization codes exchanged at the token endpoint: outcome is ok or the OAuth error code",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    syncs: new client.Counter({
      name: "bank_connect_syncs_total",
      help: "Account syncs by outcome: ok or the failure reason",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    rateLimited: new client.Counter({
      name: "bank_connect_rate_limited_total",
      help: "Requests refused by a rate limit, by policy",
      labelNames: ["policy"],
      registers: [registry],
    }),
    flowSteps: new client.Counter({
      name: "bank_connect_flow_steps_total",
      help: "Authorization flows reaching a step",
      labelNames: ["step"],
      registers: [registry],
    }),
    janitorRemoved: new client.Counter({
      name: "bank_connect_janitor_rows_removed_total",
      help: "Rows the janitor removed because they were past their retention, by table",
      labelNames: ["table"],
      registers: [registry],
    }),
    janitorDuration: new client.Histogram({
      name: "bank_connect_janitor_run_duration_seconds",
      help: "Time a janitor run took, every table included",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers: [registry],
    }),
    janitorLastRun: new client.Gauge({
      name: "bank_connect_janitor_last_run_timestamp_seconds",
      help: "When this instance's last janitor run finished, as a Unix time",
      registers: [registry],
    }),
    poolSize: poolGauge(
      "bank_connect_db_pool_connections",
      "Open connections of a database pool",
      (pool) => pool.totalCount,
    ),
    poolIdle: poolGauge(
      "bank_connect_db_pool_idle_connections",
      "Idle connections of a database pool",
      (pool) => pool.idleCount,
    ),
    poolWaiting: poolGauge(
      "bank_connect_db_pool_waiting_requests",
      "Queries waiting for a free connection of a database pool",
      (pool) => pool.waitingCount,
    ),
    poolWait: new client.Histogram({
      name: "bank_connect_db_pool_wait_seconds",
      help: "Time a query or transaction waited for a connection of a database pool (a new connection's setup included)",
      labelNames: ["pool"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    syncDuration: new client.Histogram({
      name: "bank_connect_sync_duration_seconds",
      help: "Time an account sync took, reading the bank and storing what it sent, by outcome: ok or the failure reason",
      labelNames: ["outcome"],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300],
      registers: [registry],
    }),
    ingestDuration: new client.Histogram({
      name: "bank_connect_ingest_duration_seconds",
      help: "Time the first history of a new consent's accounts took to read and store, by outcome: ok, partial or error",
      labelNames: ["outcome"],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300],
      registers: [registry],
    }),
    upstreamDuration: new client.Histogram({
      name: "bank_connect_upstream_request_duration_seconds",
      help: "Time a call to the bank aggregator took, by aggregator, operation and bank (failed calls included)",
      labelNames: ["upstream", "operation", "bank"],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    upstreamErrors: new client.Counter({
      name: "bank_connect_upstream_errors_total",
      help: "Calls to the bank aggregator that failed, by aggregator, operation, bank and reason",
      labelNames: ["upstream", "operation", "bank", "reason"],
      registers: [registry],
    }),
    mails: new client.Counter({
      name: "bank_connect_mails_total",
      help: "Mails handed to the mail provider, by provider and outcome: sent or the failure code",
      labelNames: ["provider", "outcome"],
      registers: [registry],
    }),
    jobs: new client.Counter({
      name: "bank_connect_jobs_total",
      help: "Background jobs by queue and outcome: queued, completed, retried (a try failed, another follows) or failed (no try follows)",
      labelNames: ["queue", "outcome"],
      registers: [registry],
    }),
    webhookAttempts: new client.Counter({
      name: "bank_connect_webhook_attempts_total",
      help: "Webhook delivery attempts by outcome: delivered, or the failure (http_status, timeout, connection, redirect, address_refused)",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    webhookDeliveries: new client.Counter({
      name: "bank_connect_webhook_deliveries_total",
      help: "Webhook deliveries finished, by outcome: delivered, or failed (every attempt of the schedule failed)",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    webhookDuration: new client.Histogram({
      name: "bank_connect_webhook_attempt_duration_seconds",
      help: "Time a webhook delivery attempt took, by outcome (attempts without a connection included)",
      labelNames: ["outcome"],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    jobQueueDepth: new client.Gauge({
      name: "bank_connect_job_queue_depth",
      help: "Background jobs of a queue by state: queued (waiting, deferred retries included), active, or failed (kept for the queue's retention)",
      labelNames: ["queue", "state"],
      registers: [registry],
      async collect() {
        const read = jobQueues.read;
        if (!read) return;
        const depths = await read().catch(() => null);
        this.reset();
        for (const depth of depths ?? []) {
          this.set({ queue: depth.queue, state: "queued" }, depth.queued);
          this.set({ queue: depth.queue, state: "active" }, depth.active);
          this.set({ queue: depth.queue, state: "failed" }, depth.failed);
        }
      },
    }),
  };
}

type Metrics = ReturnType<typeof createMetrics>;
const METRICS_KEY = Symbol.for("bank-connect.metrics");
const holder = globalThis as unknown as { [METRICS_KEY]?: Metrics };

function metrics(): Metrics {
  return (holder[METRICS_KEY] ??= createMetrics());
}

export function countHttpRequest(
  labels: { route: string; method: string; status: number },
  seconds: number,
): void {
  const { requests, duration } = metrics();
  requests.inc({ route: labels.route, method: labels.method, status: String(labels.status) });
  duration.observe({ route: labels.route, method: labels.method }, seconds);
}

export function countTokenExchange(outcome: string): void {
  metrics().tokenExchanges.inc({ outcome });
}

export function countSync(outcome: string): void {
  metrics().syncs.inc({ outcome });
}

export function countRateLimited(policy: string): void {
  metrics().rateLimited.inc({ policy });
}

export function countFlowStep(step: FlowStepName): void {
  metrics().flowSteps.inc({ step });
}

/** One janitor run: the rows it removed per table, how long it took, when it ended. */
export function countJanitorRun(
  removed: readonly { table: string; removed: number }[],
  seconds: number,
  finishedAt: Date,
): void {
  const { janitorRemoved, janitorDuration, janitorLastRun } = metrics();
  for (const { table, removed: count } of removed) janitorRemoved.inc({ table }, count);
  janitorDuration.observe(seconds);
  janitorLastRun.set(finishedAt.getTime() / 1000);
}

/** A database pool whose connections the pool gauges report. */
export function watchPool(name: string, pool: PoolView): void {
  metrics().pools.set(name, pool);
}

/** Time a pool's caller waited for a connection, whether it got one or timed out. */
export function observePoolWait(pool: string, seconds: number): void {
  metrics().poolWait.observe({ pool }, seconds);
}

export function observeSyncDuration(outcome: string, seconds: number): void {
  metrics().syncDuration.observe({ outcome }, seconds);
}

export function observeIngestDuration(outcome: "ok" | "partial" | "error", seconds: number): void {
  metrics().ingestDuration.observe({ outcome }, seconds);
}

/** One call to the bank aggregator; `reason` is set when it failed (a closed set, never a message). */
export function observeUpstreamCall(
  labels: { upstream: string; operation: string; bank: string },
  seconds: number,
  reason?: string,
): void {
  const { upstreamDuration, upstreamErrors } = metrics();
  upstreamDuration.observe(labels, seconds);
  if (reason !== undefined) upstreamErrors.inc({ ...labels, reason });
}

export function countMail(provider: string, outcome: string, count = 1): void {
  metrics().mails.inc({ provider, outcome }, count);
}

/** A background job's outcome (lib/jobs). */
export function countJob(queue: string, outcome: string): void {
  metrics().jobs.inc({ queue, outcome });
}

/** One webhook delivery attempt (lib/webhooks/deliver.ts): its outcome and how long it took. */
export function observeWebhookAttempt(outcome: string, seconds: number): void {
  const { webhookAttempts, webhookDuration } = metrics();
  webhookAttempts.inc({ outcome });
  webhookDuration.observe({ outcome }, seconds);
}

/** A webhook delivery finished: delivered, or failed after its last attempt. */
export function countWebhookDelivery(outcome: "delivered" | "failed"): void {
  metrics().webhookDeliveries.inc({ outcome });
}

/** The job queue's counts, read at each scrape; null stops reading them. */
export function watchJobQueues(read: (() => Promise<JobQueueDepth[]>) | null): void {
  jobQueues.read = read;
}

/** The exposition: Prometheus text format. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  const { registry } = metrics();
  return { contentType: registry.contentType, body: await registry.metrics() };
}
