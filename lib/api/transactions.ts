import type { z } from "zod";
import { isUuid } from "../db/uuid";
import { getEnv } from "../env";
import { apiJson, accountNotFound, historyPending, invalidRequest } from "./data";
import { encodeTransactionCursor, parseTransactionQuery, type TransactionQuery } from "./paging";
import { readTransactionPage, type TransactionPageRow as PageRow } from "./queries";
import type { TenantRead } from "./route";
import type { TransactionPage } from "./schemas";
import { toTransactionWire, type TransactionRow } from "./wire";

/**
 * GET /api/accounts/{id}/transactions (/docs/data; docs/paging.md): after
 * the API-key check (lib/api/route.ts, checkedRead), one statement checks
 * that the account is the key's tenant's, counts, and reads the page
 * (lib/api/queries.ts): pending entries (no booking date yet) first, then
 * newest first, ties broken by id.
 */

function nextLink(accountId: string, page: TransactionQuery, next: string): string {
  const params = new URLSearchParams({ limit: String(page.limit), cursor: next });
  return `<${getEnv().issuer}/api/accounts/${accountId}/transactions?${params}>; rel="next"`;
}

/** A page of the statement, newest first, how many rows match, and where the next page starts. */
export function planTransactions(
  accountId: string,
  params: URLSearchParams,
): TenantRead<PageRow> | Response {
  const parsed = parseTransactionQuery(params);
  if (!parsed.ok) return invalidRequest(parsed.message);
  if (!isUuid(accountId)) return accountNotFound();
  const page = parsed.value;
  return {
    read: (tenantId) => readTransactionPage(tenantId, accountId, page),
    answer: (rows) => answer(accountId, page, rows),
  };
}

function answer(accountId: string, page: TransactionQuery, rows: PageRow[]): Response {
  const [first] = rows;
  if (!first) return accountNotFound();
  // Never a part of the first history: until it is stored whole, the partner is asked to come back.
  if (first.historyPending) return historyPending();
  const found = rows.filter((row): row is PageRow & TransactionRow => row.id !== null);
  const items = found.slice(0, page.limit);
  const last = items.at(-1);
  const next =
    found.length > page.limit && last
      ? encodeTransactionCursor({
          bookingDate: last.bookingDate,
          transactionDate: last.transactionDate,
          id: last.id,
          total: first.total,
          from: page.from ?? null,
          to: page.to ?? null,
        })
      : null;
  return apiJson(
    {
      items: items.map(toTransactionWire),
      total: first.total,
      next,
    } satisfies z.infer<typeof TransactionPage>,
    200,
    next ? { Link: nextLink(accountId, page, next) } : {},
  );
}
