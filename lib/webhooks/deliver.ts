import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { db } from "../db/client";
import { isUuid } from "../db/uuid";
import {
  bareHostname,
  checkHostAddress,
  pinnedLookup,
  type ResolveHost,
} from "../http/public-address";
import { log } from "../log";
import { countWebhookDelivery, observeWebhookAttempt } from "../metrics";
import { mailEndpointDisabled } from "./disabled-mail";
import { enqueueDeliveries } from "./queue";
import {
  attemptTimeoutMs,
  isLoopbackAddress,
  RESPONSE_BODY_LIMIT,
  retrySchedule,
  webhookNetwork,
} from "./settings";
import { signedHeaders, signingKeys } from "./signing";
import { WEBHOOK_TEST_EVENT } from "./types";

/**
 * One attempt of a webhook delivery (docs/events.md#retries), run by the
 * `webhook` queue's worker with the delivery's id:
 *
 * 1. the attempt is claimed on the delivery row (pending and due): a job that
 *    came twice, or a sweep's job beside a worker's, attempts once;
 * 2. the endpoint's address is checked again, as at save: the name resolved
 *    now, every address public, and the connection made to exactly the
 *    address checked (a DNS answer that changed since the save to a private
 *    address is refused, and one that changes during the check cannot be
 *    reached);
 * 3. the event's JSON is POSTed with the Standard Webhooks headers
 *    (./signing.ts; the same `webhook-id` on every attempt), within the
 *    attempt's time limit; a redirect is never followed (it is a failure),
 *    and at most 1 KiB of the answer is read;
 * 4. the attempt is recorded; a 2xx delivers, anything else waits for the
 *    next attempt on the schedule (./settings.ts), sent as a job that
 *    starts then. After the last failure the delivery has failed, and an
 *    endpoint that had no success at all during that whole schedule is
 *    disabled and its partner's owners told by mail.
 */

export type AttemptOutcome =
  | "delivered"
  | "http_status"
  | "redirect"
  | "timeout"
  | "connection"
  | "address_refused"
  /** The endpoint's secret opens under neither SECRET_KEY nor SECRET_KEY_PREVIOUS: nothing is sent. */
  | "secret_unreadable";

export interface AttemptResult {
  outcome: AttemptOutcome;
  responseCode: number | null;
  latencyMs: number;
  responseBody: string | null;
}

export interface DeliverOptions {
  /** Resolves names (default: the system resolver); tests answer changing DNS with it. */
  lookup?: ResolveHost;
}

/** Extra time a claimed attempt holds its delivery beyond the attempt's limit. */
const CLAIM_MARGIN_MS = 60_000;
/** A job may start a little before the time its delivery names (clocks of two instances). */
const EARLY_MS = 2_000;

/** Runs the due attempt of a delivery; answers what happened, or "skipped" when none was due. */
export async function attemptDelivery(
  deliveryId: string,
  options: DeliverOptions = {},
): Promise<AttemptOutcome | "skipped"> {
  const timeoutMs = attemptTimeoutMs();
  const now = new Date();
  const claimed = await db().webhookDelivery.updateMany({
    where: {
      id: deliveryId,
      status: "pending",
      nextAttemptAt: { lte: new Date(now.getTime() + EARLY_MS) },
    },
    data: { nextAttemptAt: new Date(now.getTime() + timeoutMs + CLAIM_MARGIN_MS) },
  });
  if (claimed.count === 0) return "skipped";

  const delivery = await db().webhookDelivery.findUnique({
    where: { id: deliveryId },
    include: { event: true, endpoint: true },
  });
  if (!delivery) return "skipped";
  const { endpoint, event } = delivery;
  if (endpoint.disabledAt && event.type !== WEBHOOK_TEST_EVENT) {
    // Nothing is sent to a disabled endpoint; the partner replays once it is on again.
    await db().webhookDelivery.update({
      where: { id: deliveryId },
      data: { status: "failed", nextAttemptAt: null, lastError: "disabled" },
    });
    countWebhookDelivery("failed");
    return "skipped";
  }

  const body = JSON.stringify(event.payload);
  const at = new Date();
  const result = await postOnce(
    endpoint.url,
    body,
    () => ({
      "content-type": "application/json",
      "user-agent": "BankConnect-Webhooks/1",
      ...signedHeaders(signingKeys(endpoint, at), event.id, body, at),
    }),
    timeoutMs,
    options.lookup,
  );
  observeWebhookAttempt(result.outcome, result.latencyMs / 1000);

  const attempt = delivery.attempts + 1;
  const schedule = retrySchedule();
  const delivered = result.outcome === "delivered";
  const wait = schedule[attempt - 1];
  const last = !delivered && wait === undefined;
  const nextAttemptAt = delivered || last ? null : new Date(Date.now() + (wait ?? 0) * 1000);
  await db().$transaction([
    db().webhookAttempt.create({
      data: {
        deliveryId,
        attempt,
        at,
        responseCode: result.responseCode,
        latencyMs: result.latencyMs,
        error: delivered ? null : result.outcome,
        responseBody: result.responseBody,
      },
    }),
    db().webhookDelivery.update({
      where: { id: deliveryId },
      data: {
        attempts: attempt,
        status: delivered ? "delivered" : last ? "failed" : "pending",
        nextAttemptAt,
        lastAttemptAt: at,
        lastResponseCode: result.responseCode,
        lastLatencyMs: result.latencyMs,
        lastError: delivered ? null : result.outcome,
      },
    }),
  ]);
  log.info("webhooks.attempt", {
    delivery_id: deliveryId,
    endpoint_id: endpoint.id,
    event_type: event.type,
    attempt,
    outcome: result.outcome,
    response_code: result.responseCode,
    latency_ms: result.latencyMs,
  });

  if (delivered) countWebhookDelivery("delivered");
  else if (last) {
    countWebhookDelivery("failed");
    await disableIfFailingThroughout(endpoint.id, delivery.createdAt);
  } else if (nextAttemptAt) {
    await enqueueDeliveries([deliveryId], nextAttemptAt);
  }
  return result.outcome;
}

/**
 * After a delivery's last attempt failed: an endpoint with no successful
 * attempt since that delivery was made (the whole schedule, about three
 * days) is disabled, once, and its partner's owners are mailed.
 */
async function disableIfFailingThroughout(endpointId: string, since: Date): Promise<void> {
  const success = await db().webhookAttempt.findFirst({
    where: {
      delivery: { endpointId },
      at: { gte: since },
      responseCode: { gte: 200, lte: 299 },
    },
    select: { id: true },
  });
  if (success) return;
  const disabled = await db().webhookEndpoint.updateMany({
    where: { id: endpointId, disabledAt: null },
    data: { disabledAt: new Date(), disabledReason: "failing" },
  });
  if (disabled.count === 0) return;
  log.warn("webhooks.endpoint_disabled", { endpoint_id: endpointId, reason: "failing" });
  await mailEndpointDisabled(endpointId);
}

/** Pending deliveries due more than this long ago have lost their job. */
export const SWEEP_OVERDUE_MS = 60_000;
const SWEEP_BATCH = 500;

/**
 * The per-minute sweep: a pending delivery whose attempt is more than a
 * minute overdue lost its job (the process that held it ended, or the queue
 * was away when it was to be sent) and is queued again. Answers how many.
 */
export async function sweepOverdueDeliveries(): Promise<number> {
  const overdue = await db().webhookDelivery.findMany({
    where: { status: "pending", nextAttemptAt: { lt: new Date(Date.now() - SWEEP_OVERDUE_MS) } },
    orderBy: { nextAttemptAt: "asc" },
    take: SWEEP_BATCH,
    select: { id: true },
  });
  await enqueueDeliveries(overdue.map((delivery) => delivery.id));
  if (overdue.length > 0) log.info("webhooks.sweep_queued", { count: overdue.length });
  return overdue.length;
}

/**
 * One POST to the endpoint: the address checked first (as at save), the
 * connection pinned to the address checked, no redirect followed, the
 * answer's body read up to RESPONSE_BODY_LIMIT bytes, all within `timeoutMs`.
 */
export async function postOnce(
  url: string,
  body: string,
  headers: () => Record<string, string>,
  timeoutMs: number,
  lookup?: ResolveHost,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const fail = (outcome: AttemptOutcome, responseCode: number | null = null): AttemptResult => ({
    outcome,
    responseCode,
    latencyMs: elapsed(),
    responseBody: null,
  });
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return fail("address_refused");
  }
  const network = webhookNetwork(lookup);
  const secure = target.protocol === "https:";
  if (!secure && !(target.protocol === "http:" && network.allowLoopback)) {
    return fail("address_refused");
  }
  const hostname = bareHostname(target);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const checked = await Promise.race([checkHostAddress(hostname, network), timedOut]);
    if (checked === "timeout") return fail("timeout");
    if (!checked.ok) return fail(checked.reason === "refused" ? "address_refused" : "connection");
    if (!secure && !isLoopbackAddress(checked.address)) return fail("address_refused");

    let signed: Record<string, string>;
    try {
      signed = headers();
    } catch (error) {
      log.error("webhooks.secret_unreadable", { error });
      return fail("secret_unreadable");
    }
    const port = target.port === "" ? (secure ? 443 : 80) : Number(target.port);
    const requestOptions: RequestOptions = {
      method: "POST",
      host: hostname,
      port,
      path: `${target.pathname}${target.search}`,
      lookup: pinnedLookup(checked.address),
      agent: false,
      headers: { ...signed, "content-length": String(Buffer.byteLength(body)) },
      ...(secure && !isIP(hostname) ? { servername: hostname } : {}),
    };
    const answer = await Promise.race([
      sendRequest(secure, requestOptions, body, timedOut),
      timedOut,
    ]);
    if (answer === "timeout") return fail("timeout");
    if ("error" in answer) return fail("connection");
    const status = answer.status;
    const outcome: AttemptOutcome =
      status >= 200 && status <= 299
        ? "delivered"
        : status >= 300 && status <= 399
          ? "redirect"
          : "http_status";
    return { outcome, responseCode: status, latencyMs: elapsed(), responseBody: answer.body };
  } finally {
    clearTimeout(timer);
  }
}

type Answer = { status: number; body: string } | { error: unknown };

function sendRequest(
  secure: boolean,
  options: RequestOptions,
  body: string,
  timedOut: Promise<"timeout">,
): Promise<Answer> {
  return new Promise<Answer>((resolve) => {
    const request = (secure ? httpsRequest : httpRequest)(options);
    let settled = false;
    const finish = (answer: Answer) => {
      if (settled) return;
      settled = true;
      request.destroy();
      resolve(answer);
    };
    // The attempt's time is up: the socket goes, whatever it was doing.
    void timedOut.then(() => finish({ error: "timeout" }));
    request.on("error", (error) => finish({ error }));
    request.on("response", (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let received = 0;
      const done = () =>
        finish({
          status,
          // A NUL cannot be stored in a text column.
          body: Buffer.concat(chunks)
            .subarray(0, RESPONSE_BODY_LIMIT)
            .toString("utf8")
            .replaceAll("\u0000", ""),
        });
      response.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        // Enough read: the rest of the answer is never waited for.
        if (received >= RESPONSE_BODY_LIMIT) done();
      });
      response.on("end", done);
      response.on("error", done);
      response.on("aborted", done);
    });
    request.end(body);
  });
}

/**
 * The `webhook` queue's handler: one attempt of the delivery the job names.
 * A throw (the database away) fails the job, and pg-boss tries it again.
 */
export async function runWebhookJob(
  job: { id: string; data: { deliveryId?: unknown } },
  options: DeliverOptions = {},
): Promise<{ outcome: string }> {
  const deliveryId = job.data.deliveryId;
  if (typeof deliveryId !== "string" || !isUuid(deliveryId)) return { outcome: "invalid" };
  return { outcome: await attemptDelivery(deliveryId, options) };
}
