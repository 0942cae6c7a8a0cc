import { db } from "../db/client";
import { isUuid } from "../db/uuid";
import { errorJson, privateJson } from "../http/respond";
import type { ApiKeyPrincipal } from "../keys/api-keys";
import { toConnectionWire } from "./wire";

/**
 * The data API's shared answers and its connections list, always scoped to
 * the key's tenant: another tenant's account id is not found. The accounts
 * list and the transactions pages are lib/api/accounts.ts and
 * lib/api/transactions.ts.
 */

export const apiJson = privateJson;

export const invalidRequest = (description: string) =>
  errorJson(400, "invalid_request", description);

export const accountNotFound = () => errorJson(404, "not_found", "no such account");

/** Seconds a partner waits before asking again for a history still being stored. */
export const HISTORY_PENDING_RETRY_AFTER_SECONDS = 5;

/**
 * The account's first history is still being stored, or storing it failed
 * and the account's next sync fetches it again (docs/ingest.md): 503
 * `transient` with Retry-After, the answer every SDK retries.
 */
export const historyPending = () =>
  apiJson({ status: 503, reason: "transient" }, 503, {
    "Retry-After": String(HISTORY_PENDING_RETRY_AFTER_SECONDS),
  });

/** The tenant's account with this id, or null (malformed ids included). */
export async function findTenantAccount(principal: ApiKeyPrincipal, accountId: string) {
  if (!isUuid(accountId)) return null;
  return db().account.findFirst({
    where: { id: accountId, tenantId: principal.tenantId },
    include: { connection: true },
  });
}

export async function listConnections(
  principal: ApiKeyPrincipal,
  now = new Date(),
): Promise<Response> {
  const connections = await db().connection.findMany({
    where: { tenantId: principal.tenantId },
    include: { accounts: { select: { id: true }, orderBy: { createdAt: "asc" } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return apiJson(connections.map((connection) => toConnectionWire(connection, now)));
}
