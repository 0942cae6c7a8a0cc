import type { JobResult, JobWithMetadata } from "pg-boss";
import { log } from "../log";
import { mailer, MailError, type MailErrorCode, type MailMessage } from "../mail";
import { countJob } from "../metrics";
import { jobsRuntime, QUEUES, type MailRetrySettings } from "./runtime";
import { openJobData, sealJobData } from "./sealed-data";

/**
 * Mail through the job queue. The first try is made at once, inside the
 * request that asked for the mail: the person waiting for a sign-in code
 * waits no longer than the provider takes to answer, and a
 * refusal that will not change (a bad address, a misconfiguration) is told
 * to them at once. Only a failure that may pass (a greylisting relay's 4xx,
 * a provider's 5xx or 429, no answer at all) puts the mail on the queue,
 * where any instance tries it again with exponential backoff. Queuing every
 * mail instead and letting a worker pick it up would add a poll interval to
 * every sign-in and turn a bad address into a silent loss.
 *
 * The queued mail is sealed (./sealed-data.ts): the job table holds no
 * address, link or code in the clear, and nothing of the mail is logged.
 * A mail that has a deadline (a sign-in mail: its code expires) is dropped
 * once past it rather than delivered useless.
 */

/** What a mail is, for the operator: a closed set, never the address. */
export type MailKind =
  "sign_in" | "account_changed" | "access_granted" | "consent_ending" | "webhook_disabled";

export type MailDelivery = "sent" | "queued";

/** Failures that may pass: tried again later. */
const TRANSIENT: ReadonlySet<MailErrorCode> = new Set(["unavailable", "rate_limited"]);

export function isTransientMailError(error: unknown): error is MailError {
  return error instanceof MailError && TRANSIENT.has(error.code);
}

export interface MailJobData {
  kind: MailKind;
  /** The MailMessage, sealed. */
  mail: string;
  /** ISO time after which the mail is no longer worth sending. */
  notAfter: string | null;
}

/**
 * The defaults: after the request's own try, tries about 15 s, 45 s, 1¾ min,
 * 3¾ min, 7¾ min and 12¾ min later (pg-boss adds jitter), which a
 * greylisting relay's usual 1 to 5 minutes fits, all within the 15 minutes a
 * sign-in code lives; a later try of a sign-in mail is dropped as expired.
 */
export const DEFAULT_MAIL_RETRY: MailRetrySettings = {
  delaySeconds: 15,
  maxDelaySeconds: 300,
  limit: 8,
};

/**
 * Sends `message` now; on a failure that may pass, and with a queue running
 * in this process, queues it for another try and answers "queued". Any other
 * failure is thrown, as the mailer threw it.
 */
export async function deliverMail(
  message: MailMessage,
  options: { kind: MailKind; notAfter?: Date },
): Promise<MailDelivery> {
  try {
    await mailer().send(message);
    return "sent";
  } catch (error) {
    const runtime = jobsRuntime();
    if (!runtime || !isTransientMailError(error)) throw error;
    const retry = runtime.mailRetry;
    const data: MailJobData = {
      kind: options.kind,
      mail: sealJobData(QUEUES.mail, message),
      notAfter: options.notAfter?.toISOString() ?? null,
    };
    const id = await runtime.boss.send(QUEUES.mail, data, {
      startAfter: retry.delaySeconds,
      retryLimit: retry.limit,
      retryDelay: retry.delaySeconds,
      retryBackoff: true,
      retryDelayMax: retry.maxDelaySeconds,
    });
    // The queue refused nothing here; an id of null would mean a singleton held it back.
    if (!id) throw error;
    countJob(QUEUES.mail, "queued");
    log.warn("mail.retry_queued", { kind: options.kind, reason: error.code, job_id: id });
    return "queued";
  }
}

/**
 * One queued mail's try (the mail queue's worker): delivered, tried again
 * later (a failure that may pass; pg-boss waits longer each time and marks
 * the job failed after the last try), or failed at once (a refusal that will
 * not change, a deadline passed, a payload no key opens).
 */
export async function runMailJob(job: JobWithMetadata<MailJobData>): Promise<JobResult> {
  const fail = (outcome: string, output: Record<string, unknown>): JobResult => {
    countJob(QUEUES.mail, "failed");
    log.error("mail.retry_failed", { kind: job.data.kind, job_id: job.id, outcome, ...output });
    return { id: job.id, status: "deadletter", output: { outcome, ...output } };
  };
  if (job.data.notAfter && Date.parse(job.data.notAfter) <= Date.now()) {
    return fail("expired", { reason: "the mail's deadline passed before a try succeeded" });
  }
  const message = openJobData<MailMessage>(QUEUES.mail, job.data.mail);
  if (!message) return fail("unreadable", { reason: "no secret key opens the queued mail" });
  try {
    await mailer().send(message);
  } catch (error) {
    const reason = error instanceof MailError ? error.code : "error";
    const text = error instanceof Error ? error.message : String(error);
    if (!isTransientMailError(error)) return fail("refused", { reason, error: text });
    const last = job.retryCount >= job.retryLimit;
    countJob(QUEUES.mail, last ? "failed" : "retried");
    log.warn("mail.retry_again", {
      kind: job.data.kind,
      job_id: job.id,
      attempt: job.retryCount + 1,
      reason,
      error: text,
    });
    return {
      id: job.id,
      status: "failed",
      output: { outcome: "unavailable", reason, error: text },
    };
  }
  countJob(QUEUES.mail, "completed");
  log.info("mail.retry_sent", { kind: job.data.kind, job_id: job.id, attempt: job.retryCount + 1 });
  return { id: job.id, status: "completed", output: { outcome: "sent" } };
}
