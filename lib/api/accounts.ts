import type { z } from "zod";
import { getEnv } from "../env";
import { apiJson, invalidRequest } from "./data";
import { encodeAccountCursor, parseAccountQuery, type AccountQuery } from "./paging";
import { accountsWithKey, type ListedAccountRow } from "./queries";
import type { KeyedTenantRead } from "./route";
import type { AccountPage } from "./schemas";
import { toAccountWire } from "./wire";

/**
 * GET /api/accounts (/docs/data): the tenant's accounts with their bank
 * and sealed balances, in the order they were connected, read in the same
 * statement as the API key (lib/api/route.ts, keyedRead; lib/api/queries.ts).
 * Without parameters it answers the whole list as a JSON array, as the SDKs
 * read it; with `limit` (and then `cursor`) one page, `{items, next}`
 * (docs/paging.md). An account whose consent was withdrawn never shows
 * `needsReconnect` (docs/sync-failures.md), whatever an older sync stored.
 */

export function planAccounts(
  params: URLSearchParams,
): KeyedTenantRead<ListedAccountRow> | Response {
  const parsed = parseAccountQuery(params);
  if (!parsed.ok) return invalidRequest(parsed.message);
  const page = parsed.value;
  return {
    statement: (hashes, now) => accountsWithKey(hashes, now, page),
    present: "id",
    answer: (rows) => answer(page, rows),
  };
}

function answer(page: AccountQuery, rows: ListedAccountRow[]): Response {
  if (!page.paged) return apiJson(rows.map(toAccountWire));
  const items = rows.slice(0, page.limit);
  const last = items.at(-1);
  const next = rows.length > page.limit && last ? encodeAccountCursor(last) : null;
  const headers: Record<string, string> = {};
  if (next) {
    const query = new URLSearchParams({ limit: String(page.limit), cursor: next });
    headers.Link = `<${getEnv().issuer}/api/accounts?${query}>; rel="next"`;
  }
  const body = { items: items.map(toAccountWire), next } satisfies z.infer<typeof AccountPage>;
  return apiJson(body, 200, headers);
}
