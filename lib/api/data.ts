import { db } from "../db/client";
import { isUuid } from "../db/uuid";
import { errorJson, privateJson } from "../http/respond";
import type { ApiKeyPrincipal } from "../keys/api-keys";
import { toAccountWire, toConnectionWire, toTransactionWire } from "./wire";

/**
 * The read operations of the data API (SPEC 4.6, CONTRACT §7.1–7.3), always
 * scoped to the key's tenant: another tenant's account id is not found.
 */

/** Transactions page size when `limit` is not given, and the largest allowed. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;
const MAX_OFFSET = 10_000_000;

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

export async function listAccounts(principal: ApiKeyPrincipal): Promise<Response> {
  const accounts = await db().account.findMany({
    where: { tenantId: principal.tenantId },
    include: {
      balances: { orderBy: { balanceType: "asc" } },
      connection: { select: { aspspName: true, aspspCountry: true } },
    },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return apiJson(accounts.map(toAccountWire));
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

type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

function parseDate(name: string, raw: string | null): Parsed<string | undefined> {
  if (raw === null) return { ok: true, value: undefined };
  // Month 00 or 13, day 00 or 32: an invalid Date, whose toISOString() throws.
  const date = new Date(`${raw}T00:00:00Z`);
  const valid =
    ISO_DATE.test(raw) && !Number.isNaN(date.getTime()) && date.toISOString().startsWith(raw);
  return valid
    ? { ok: true, value: raw }
    : { ok: false, message: `${name} must be a calendar date as YYYY-MM-DD` };
}

function parseInteger(
  name: string,
  raw: string | null,
  fallback: number,
  range: [number, number],
): Parsed<number> {
  if (raw === null) return { ok: true, value: fallback };
  const [min, max] = range;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  return value >= min && value <= max
    ? { ok: true, value }
    : { ok: false, message: `${name} must be an integer from ${min} to ${max}` };
}

export interface TransactionQuery {
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

/** CONTRACT §7.2's query: `from`, `to` as dates, `limit`, `offset`; each given at most once. */
export function parseTransactionQuery(params: URLSearchParams): Parsed<TransactionQuery> {
  for (const name of new Set(params.keys())) {
    if (!["from", "to", "limit", "offset"].includes(name)) {
      return { ok: false, message: `unknown parameter ${name}; use from, to, limit and offset` };
    }
    if (params.getAll(name).length > 1) return { ok: false, message: `${name} is given twice` };
  }
  const from = parseDate("from", params.get("from"));
  const to = parseDate("to", params.get("to"));
  const limit = parseInteger("limit", params.get("limit"), DEFAULT_PAGE_SIZE, [1, MAX_PAGE_SIZE]);
  const offset = parseInteger("offset", params.get("offset"), 0, [0, MAX_OFFSET]);
  for (const parsed of [from, to, limit, offset]) if (!parsed.ok) return parsed;
  if (!from.ok || !to.ok || !limit.ok || !offset.ok) return { ok: false, message: "bad query" };
  if (from.value && to.value && from.value > to.value) {
    return { ok: false, message: "from must not be after to" };
  }
  return {
    ok: true,
    value: { from: from.value, to: to.value, limit: limit.value, offset: offset.value },
  };
}

/** A page of the statement, newest first, and how many rows match the filter. */
export async function listTransactions(
  principal: ApiKeyPrincipal,
  accountId: string,
  params: URLSearchParams,
): Promise<Response> {
  const query = parseTransactionQuery(params);
  if (!query.ok) return invalidRequest(query.message);
  const account = await findTenantAccount(principal, accountId);
  if (!account) return accountNotFound();
  // Never a part of the first history: until it is stored whole, the partner is asked to come back.
  if (account.historyPending) return historyPending();
  const { from, to, limit, offset } = query.value;
  const where = {
    accountId: account.id,
    ...(from || to
      ? { bookingDate: { ...(from ? { gte: from } : {}), ...(to ? { lte: to } : {}) } }
      : {}),
  };
  const [items, total] = await db().$transaction([
    db().transaction.findMany({
      where,
      // Pending entries (no booking date yet) are the newest; ties break stably for paging.
      orderBy: [
        { bookingDate: { sort: "desc", nulls: "first" } },
        { transactionDate: { sort: "desc", nulls: "first" } },
        { id: "asc" },
      ],
      take: limit,
      skip: offset,
    }),
    db().transaction.count({ where }),
  ]);
  return apiJson({ items: items.map(toTransactionWire), total });
}
