import type { z } from "zod";
import { syncAccount, SYNC_FAILURE_STATUS, type SyncOutcome } from "../banking/sync";
import type { ApiKeyPrincipal } from "../keys/api-keys";
import { apiJson } from "./data";
import { BulkSyncRequest, SyncRequest } from "./schemas";
import { psuHeadersOf } from "./psu-headers";
import { readBodyTextOrRefuse } from "../http/body-limits";

/**
 * POST /api/accounts/{id}/sync and POST /api/sync (SPEC 4.6, 7.3; CONTRACT
 * §7.4–7.5). Refusals are `{status, reason, bankErrorCode?}` with the
 * reason's status and an integer Retry-After where the upstream gave one.
 */

const problem = (status: number, reason: string, detail?: string) =>
  apiJson({ status, reason, ...(detail ? { detail } : {}) }, status);

async function readJson<T>(request: Request, schema: z.ZodType<T>): Promise<T | Response> {
  const text = await readBodyTextOrRefuse(request);
  if (text instanceof Response) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return problem(400, "invalid_request", "the body must be JSON");
  }
  const result = schema.safeParse(parsed);
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
  };
  const headers: Record<string, string> =
    outcome.retryAfterSeconds === null ? {} : { "Retry-After": String(outcome.retryAfterSeconds) };
  return apiJson(body, status, headers);
}

export async function handleAccountSync(
  principal: ApiKeyPrincipal,
  request: Request,
  accountId: string,
): Promise<Response> {
  const body = await readJson(request, SyncRequest);
  if (body instanceof Response) return body;
  const outcome = await syncAccount({
    tenantId: principal.tenantId,
    accountId,
    uid: body.uid,
    psuHeaders: psuHeadersOf(request, principal),
  });
  if (!outcome) return problem(404, "not_found", "no such account");
  if (!outcome.ok) return failureResponse(outcome);
  return apiJson({ newTransactions: outcome.newTransactions, totalFetched: outcome.totalFetched });
}

export async function handleBulkSync(principal: ApiKeyPrincipal, request: Request) {
  const body = await readJson(request, BulkSyncRequest);
  if (body instanceof Response) return body;
  const psuHeaders = psuHeadersOf(request, principal);
  let accounts = 0;
  let newTransactions = 0;
  const failures: { accountId: string; reason: string; bankErrorCode: string | null }[] = [];
  // One sync per account, in order: the upstream throttles per consent, not per call.
  const items = new Map(body.items.map((item) => [item.accountId, item.uid]));
  for (const [accountId, uid] of items) {
    const outcome = await syncAccount({
      tenantId: principal.tenantId,
      accountId,
      uid,
      psuHeaders,
    });
    if (!outcome) {
      failures.push({ accountId, reason: "not_found", bankErrorCode: null });
    } else if (outcome.ok) {
      accounts += 1;
      newTransactions += outcome.newTransactions;
    } else if (outcome.reason !== "consent_withdrawn") {
      // SPEC 4.6: accounts whose consent was withdrawn are left out silently.
      failures.push({ accountId, reason: outcome.reason, bankErrorCode: outcome.bankErrorCode });
    }
  }
  return apiJson({ accounts, newTransactions, failures });
}
