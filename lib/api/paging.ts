import { z } from "zod";
import { isUuid } from "../db/uuid";

/**
 * The data API's paging parameters and cursors (docs/paging.md). A cursor is
 * opaque to partners: base64url of a small JSON array naming the last row of
 * the page it came from, so the next page starts right after that row in the
 * index's order, at any depth, in the same time. It is not signed: all it can
 * name is a position in an account the key may read anyway, and a forged one
 * only misleads its forger.
 */

/** Page size when `limit` is not given, and the largest allowed. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;
/**
 * The deepest `offset`: skipping rows costs time in proportion to how many
 * are skipped, so beyond this depth a page is read by cursor instead. Far
 * above two years of a busy shop's statement (about 11 000 rows), so the
 * published SDKs, which page by offset, read whole accounts.
 */
export const MAX_OFFSET = 100_000;

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

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
  beyond = "",
): Parsed<number> {
  if (raw === null) return { ok: true, value: fallback };
  const [min, max] = range;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (value > max && beyond) return { ok: false, message: beyond };
  return value >= min && value <= max
    ? { ok: true, value }
    : { ok: false, message: `${name} must be an integer from ${min} to ${max}` };
}

/** Each parameter is known and given at most once. */
function checkNames(params: URLSearchParams, known: string[]): Parsed<null> {
  for (const name of new Set(params.keys())) {
    if (!known.includes(name)) {
      const list = `${known.slice(0, -1).join(", ")} and ${known.at(-1)}`;
      return { ok: false, message: `unknown parameter ${name}; use ${list}` };
    }
    if (params.getAll(name).length > 1) return { ok: false, message: `${name} is given twice` };
  }
  return { ok: true, value: null };
}

const encodeCursor = (fields: unknown[]) =>
  Buffer.from(JSON.stringify(fields), "utf8").toString("base64url");

function decodeCursor<T>(raw: string, schema: z.ZodType<T>): T | null {
  if (raw.length > 1000 || !/^[A-Za-z0-9_-]+$/.test(raw)) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(raw, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const BAD_CURSOR = "cursor must be the next value of a previous page, unchanged";

/** Stored dates are the bank's, so a cursor carries them as they are, bounded. */
const storedDate = z.string().max(40).nullable();
const uuid = z.string().refine(isUuid);

/**
 * Where a transactions page continues: after the row (bookingDate,
 * transactionDate, id) in the statement's order, for the filter of the
 * first page, whose `total` it carries so that no later page counts again.
 */
export interface TransactionCursor {
  bookingDate: string | null;
  transactionDate: string | null;
  id: string;
  total: number;
  from: string | null;
  to: string | null;
}

const TransactionCursorFields = z.tuple([
  z.literal("t1"),
  storedDate,
  storedDate,
  uuid,
  z.int().min(0),
  z.string().regex(ISO_DATE).nullable(),
  z.string().regex(ISO_DATE).nullable(),
]);

export function encodeTransactionCursor(cursor: TransactionCursor): string {
  const { bookingDate, transactionDate, id, total, from, to } = cursor;
  return encodeCursor(["t1", bookingDate, transactionDate, id, total, from, to]);
}

export function decodeTransactionCursor(raw: string): TransactionCursor | null {
  const fields = decodeCursor(raw, TransactionCursorFields);
  if (!fields) return null;
  const [, bookingDate, transactionDate, id, total, from, to] = fields;
  return { bookingDate, transactionDate, id, total, from, to };
}

export interface TransactionQuery {
  from?: string;
  to?: string;
  limit: number;
  offset: number;
  cursor?: TransactionCursor;
}

/**
 * The transactions query (/docs/data): `from`, `to` (dates), `limit`, `offset`, and
 * `cursor`, each at most once. A cursor replaces the offset and brings the
 * first page's filter with it: `from` and `to` may be repeated, not changed.
 */
export function parseTransactionQuery(params: URLSearchParams): Parsed<TransactionQuery> {
  const names = checkNames(params, ["from", "to", "limit", "offset", "cursor"]);
  if (!names.ok) return names;
  const from = parseDate("from", params.get("from"));
  const to = parseDate("to", params.get("to"));
  const limit = parseInteger("limit", params.get("limit"), DEFAULT_PAGE_SIZE, [1, MAX_PAGE_SIZE]);
  const offset = parseInteger(
    "offset",
    params.get("offset"),
    0,
    [0, MAX_OFFSET],
    `offset must be an integer from 0 to ${MAX_OFFSET}; to read deeper, page with cursor: pass the next value of the previous page`,
  );
  for (const parsed of [from, to, limit, offset]) if (!parsed.ok) return parsed;
  if (!from.ok || !to.ok || !limit.ok || !offset.ok) return { ok: false, message: "bad query" };
  if (from.value && to.value && from.value > to.value) {
    return { ok: false, message: "from must not be after to" };
  }
  const rawCursor = params.get("cursor");
  if (rawCursor === null) {
    return {
      ok: true,
      value: { from: from.value, to: to.value, limit: limit.value, offset: offset.value },
    };
  }
  if (params.has("offset")) return { ok: false, message: "give offset or cursor, not both" };
  const cursor = decodeTransactionCursor(rawCursor);
  if (!cursor) return { ok: false, message: BAD_CURSOR };
  if ((from.value && from.value !== cursor.from) || (to.value && to.value !== cursor.to)) {
    return { ok: false, message: "from and to must be those of the page the cursor came from" };
  }
  return {
    ok: true,
    value: {
      from: cursor.from ?? undefined,
      to: cursor.to ?? undefined,
      limit: limit.value,
      offset: 0,
      cursor,
    },
  };
}

/** Where an accounts page continues: after the account (createdAt, id). */
export interface AccountCursor {
  createdAt: Date;
  id: string;
}

const AccountCursorFields = z.tuple([z.literal("a1"), z.iso.datetime(), uuid]);

export function encodeAccountCursor(cursor: AccountCursor): string {
  return encodeCursor(["a1", cursor.createdAt.toISOString(), cursor.id]);
}

export function decodeAccountCursor(raw: string): AccountCursor | null {
  const fields = decodeCursor(raw, AccountCursorFields);
  return fields ? { createdAt: new Date(fields[1]), id: fields[2] } : null;
}

/**
 * GET /api/accounts: without parameters the whole list, as the SDKs read it;
 * `limit` and/or `cursor` ask for one page of it.
 */
export type AccountQuery = { paged: false } | { paged: true; limit: number; after?: AccountCursor };

export function parseAccountQuery(params: URLSearchParams): Parsed<AccountQuery> {
  const names = checkNames(params, ["limit", "cursor"]);
  if (!names.ok) return names;
  if (!params.has("limit") && !params.has("cursor")) return { ok: true, value: { paged: false } };
  const limit = parseInteger("limit", params.get("limit"), DEFAULT_PAGE_SIZE, [1, MAX_PAGE_SIZE]);
  if (!limit.ok) return limit;
  const rawCursor = params.get("cursor");
  if (rawCursor === null) return { ok: true, value: { paged: true, limit: limit.value } };
  const after = decodeAccountCursor(rawCursor);
  if (!after) return { ok: false, message: BAD_CURSOR };
  return { ok: true, value: { paged: true, limit: limit.value, after } };
}
