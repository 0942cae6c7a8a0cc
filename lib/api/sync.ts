import type { z } from "zod";
import {
  inSyncSlot,
  startSyncDeadline,
  SyncBusyError,
  SyncDeadlineError,
  SYNC_RETRY_AFTER_SECONDS,
  type SyncDeadline,
} from "../banking/budget";
import { syncAccount, SYNC_FAILURE_STATUS, type SyncOutcome } from "../banking/sync";
import { isDatabaseUnavailable } from "../db/faults";
import type { ApiKeyPrincipal } from "../keys/api-keys";
import { log } from "../log";
import { countSync } from "../metrics";
import { apiJson } from "./data";
import { BulkSyncRequest, SyncRequest } from "./schemas";
import { psuHeadersOf } from "./psu-headers";
import { bodyTooLargeFor, readJsonBody } from "../http/body-limits";

/**
 * POST /api/accounts/{id}/sync and POST /api/sync (/docs/data,
 * /docs/sync). Refusals are `{status, reason, bankErrorCode?}` with the
 * reason's status and an integer Retry-After where the upstream gave one.
 *
 * Both run in a sync slot under one deadline (docs/capacity.md): no free
 * slot in time, or the deadline passed, answers 503 `transient` with
 * Retry-After, and nothing of the unfinished account is stored.
 */

const problem = (status: number, reason: string, detail?: string) =>
  apiJson({ status, reason, ...(detail ? { detail } : {}) }, status);

async function readJson<T>(request: Request, schema: z.ZodType<T>): Promise<T | Response> {
  const read = await readJsonBody(request);
  if (!read.ok) {
    return read.problem === "too_large"
      ? bodyTooLargeFor(request, read.limit)
      : problem(400, "invalid_request", "the body must be JSON");
  }
  const result = schema.safeParse(read.value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "body";
    return problem(400, "invalid_request", `${where}: ${issue?.message ?? "invalid"}`);
  }
  return result.data;
}

function failureResponse(outcome: Exclude<SyncOutcome, { ok: true }>): Response {
  const status = SYNC_FAILURE_STATUS[outcome.reason];
  const body = {
    status,
    reason: outcome.reason,
    ...(outcome.bankErrorCode ? { bankErrorCode: outcome.bankErrorCode } : {}),
    ...(outcome.missingPsuHeaders && { missingPsuHeaders: outcome.missingPsuHeaders }),
  };
  const headers: Record<string, string> =
    outcome.retryAfterSeconds === null ? {} : { "Retry-After": String(outcome.retryAfterSeconds) };
  return apiJson(body, status, headers);
}

/** The service, not the bank, could not sync now: 503 transient with Retry-After. */
function syncUnavailable(): Response {
  return apiJson({ status: 503, reason: "transient" }, 503, {
    "Retry-After": String(SYNC_RETRY_AFTER_SECONDS),
  });
}

/** Runs `work` in a sync slot; no slot, or no time left, is a 503 transient. */
async function inSlot(work: () => Promise<Response>): Promise<Response> {
  try {
    return await inSyncSlot(work);
  } catch (error) {
    if (error instanceof SyncBusyError) {
      countSync("busy");
      log.warn("sync.busy", {});
      return syncUnavailable();
    }
    if (error instanceof SyncDeadlineError) {
      countSync("deadline_exceeded");
      log.warn("sync.deadline_exceeded", { error });
      return syncUnavailable();
    }
    throw error;
  }
}

export async function handleAccountSync(
  principal: ApiKeyPrincipal,
  request: Request,
  accountId: string,
): Promise<Response> {
  const body = await readJson(request, SyncRequest);
  if (body instanceof Response) return body;
  const psuHeaders = psuHeadersOf(request, principal);
  return inSlot(async () => {
    const outcome = await syncAccount({
      tenantId: principal.tenantId,
      accountId,
      uid: body.uid,
      psuHeaders,
    });
    countSync(syncOutcomeLabel(outcome));
    if (!outcome) return problem(404, "not_found", "no such account");
    if (!outcome.ok) return failureResponse(outcome);
    return apiJson({
      newTransactions: outcome.newTransactions,
      totalFetched: outcome.totalFetched,
    });
  });
}

/** The outcome's label in the sync counter: ok, the failure's reason, not_found or unavailable. */
function syncOutcomeLabel(outcome: SyncOutcome | null | "unavailable"): string {
  if (outcome === "unavailable") return "unavailable";
  if (!outcome) return "not_found";
  return outcome.ok ? "ok" : outcome.reason;
}

type BulkFailure = {
  accountId: string;
  reason: string;
  bankErrorCode: string | null;
  missingPsuHeaders?: string[];
};

/**
 * One account of a bulk sync. What the service itself could not do (the
 * database failed, the deadline passed) is that account's `transient`
 * failure, reported with the others instead of failing the whole call.
 */
async function syncOneOfMany(
  principal: ApiKeyPrincipal,
  item: { accountId: string; uid: string },
  context: {
    psuHeaders: Record<string, string> | undefined;
    deadline: SyncDeadline;
    lapsedConnections: Map<string, SyncOutcome>;
  },
): Promise<SyncOutcome | null | "unavailable"> {
  if (context.deadline.expired) return "unavailable";
  try {
    return await syncAccount({
      tenantId: principal.tenantId,
      accountId: item.accountId,
      uid: item.uid,
      psuHeaders: context.psuHeaders,
      deadline: context.deadline,
      lapsedConnections: context.lapsedConnections,
    });
  } catch (error) {
    if (error instanceof SyncDeadlineError) log.warn("sync.deadline_exceeded", { error });
    else if (isDatabaseUnavailable(error)) log.warn("sync.database_unavailable", { error });
    else log.error("sync.account_failed", { error });
    return "unavailable";
  }
}

export async function handleBulkSync(principal: ApiKeyPrincipal, request: Request) {
  const body = await readJson(request, BulkSyncRequest);
  if (body instanceof Response) return body;
  const psuHeaders = psuHeadersOf(request, principal);
  // One sync per account, in order: the upstream throttles per consent, not per call.
  const items = new Map(body.items.map((item) => [item.accountId, item.uid]));
  return inSlot(async () => {
    const context = { psuHeaders, deadline: startSyncDeadline(), lapsedConnections: new Map() };
    let accounts = 0;
    let newTransactions = 0;
    let unavailable = 0;
    const failures: BulkFailure[] = [];
    for (const [accountId, uid] of items) {
      const outcome = await syncOneOfMany(principal, { accountId, uid }, context);
      countSync(syncOutcomeLabel(outcome));
      if (outcome === "unavailable") {
        unavailable += 1;
        failures.push({ accountId, reason: "transient", bankErrorCode: null });
      } else if (!outcome) {
        failures.push({ accountId, reason: "not_found", bankErrorCode: null });
      } else if (outcome.ok) {
        accounts += 1;
        newTransactions += outcome.newTransactions;
      } else if (outcome.reason !== "consent_withdrawn") {
        // Accounts whose consent was withdrawn are left out silently.
        failures.push({
          accountId,
          reason: outcome.reason,
          bankErrorCode: outcome.bankErrorCode,
          ...(outcome.missingPsuHeaders && { missingPsuHeaders: outcome.missingPsuHeaders }),
        });
      }
    }
    // Only when the service could do nothing at all is the whole call refused.
    if (items.size > 0 && unavailable === items.size) return syncUnavailable();
    return apiJson({ accounts, newTransactions, failures });
  });
}
