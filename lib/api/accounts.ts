import type { z } from "zod";
import { sql, EMPTY_SQL, type SqlFragment } from "../db/sql";
import { getEnv } from "../env";
import { apiJson, invalidRequest } from "./data";
import { encodeAccountCursor, parseAccountQuery, type AccountQuery } from "./paging";
import type { TenantRead } from "./route";
import type { AccountPage } from "./schemas";
import { toAccountWire, type AccountRow } from "./wire";

type ListedRow = AccountRow & { createdAt: Date };

/**
 * GET /api/accounts (/docs/data): the tenant's accounts with their bank
 * and sealed balances, in the order they were connected, read in the same
 * statement as the API key (lib/api/route.ts, keyedRead).
 * Without parameters it answers the whole list as a JSON array, as the SDKs
 * read it; with `limit` (and then `cursor`) one page, `{items, next}`
 * (docs/paging.md). An account whose consent was withdrawn never shows
 * `needsReconnect` (docs/sync-failures.md), whatever an older sync stored.
 */

export function planAccounts(params: URLSearchParams): TenantRead<ListedRow> | Response {
  const parsed = parseAccountQuery(params);
  if (!parsed.ok) return invalidRequest(parsed.message);
  const page = parsed.value;
  const after =
    page.paged && page.after
      ? sql` AND (a."createdAt", a."id") > (${page.after.createdAt}::timestamp, ${page.after.id}::uuid)`
      : EMPTY_SQL;
  // One row more than the page tells whether another page follows.
  const limit = page.paged ? sql` LIMIT ${page.limit + 1}` : EMPTY_SQL;
  const statement = (tenantId: SqlFragment) => sql`
    SELECT a."id", c."aspspName", c."aspspCountry", a."currency", a."accountType", a."bic",
           (a."needsReconnect" AND NOT a."consentWithdrawn") AS "needsReconnect", a."enc", a."displayNameEnc", a."uidEnc", a."createdAt",
           COALESCE((
             SELECT json_agg(json_build_object('balanceType', b."balanceType",
                      'currency', b."currency", 'referenceDate', b."referenceDate", 'enc', b."enc")
                    ORDER BY b."balanceType", b."position")
               FROM "Balance" b WHERE b."accountId" = a."id"
           ), '[]'::json) AS "balances"
      FROM "Account" a JOIN "Connection" c ON c."id" = a."connectionId"
     WHERE a."tenantId" = ${tenantId}${after}
     ORDER BY a."createdAt", a."id"${limit}`;
  return { statement, present: "id", answer: (rows) => answer(page, rows) };
}

function answer(page: AccountQuery, rows: ListedRow[]): Response {
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
