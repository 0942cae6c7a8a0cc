import type { ReadWindow } from "./fetch-and-store";

/**
 * Which days a read asks the bank for (docs/ingest.md#which-days-a-sync-reads).
 */

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A first history asks for as much as the bank keeps (`strategy=longest`);
 * a bank that refuses gets these windows, longest first, and the one it
 * accepts is kept as the account's depth (`historyDays`).
 */
export const HISTORY_WINDOWS_DAYS = [180, 90, 30] as const;

/** What an upstream that knows no `longest` reads for a first history (the sandbox). */
export const INITIAL_HISTORY_DAYS = HISTORY_WINDOWS_DAYS[0];

/**
 * Every sync reads again this many days before the last one: a bank books
 * many entries days after their date (weekends, holidays, card clearing,
 * payments from abroad), and such a late entry is dated inside days already
 * read. The argument for 14 is in docs/ingest.md#late-arrivals.
 */
export const REREAD_DAYS = 14;

/**
 * A sync reads back to the oldest pending entry it holds, so that the bank's
 * answer covers it, but never further back than this: an authorization is
 * released or booked within a month (card schemes hold them 7 to 30 days).
 */
export const PENDING_REREAD_LIMIT_DAYS = 35;

export const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const daysBefore = (now: Date, days: number) => isoDay(new Date(now.getTime() - days * DAY_MS));

/** Days from `dateFrom` to `now`'s day, for `historyDays`. */
export function depthOf(window: ReadWindow, now: Date): number {
  return Math.round((Date.parse(isoDay(now)) - Date.parse(window.dateFrom)) / DAY_MS);
}

/** The shorter windows tried after `dateFrom` is refused, within the depth the bank allows. */
function fallbacks(now: Date, dateFrom: string, historyDays: number | null): ReadWindow[] {
  return HISTORY_WINDOWS_DAYS.filter((days) => historyDays === null || days <= historyDays)
    .map((days) => ({ dateFrom: daysBefore(now, days) }))
    .filter((window) => window.dateFrom > dateFrom);
}

/** An account's first history: as far back as the bank allows. */
export function firstHistoryWindows(now: Date, historyDays: number | null = null): ReadWindow[] {
  if (historyDays !== null) {
    const dateFrom = daysBefore(now, historyDays);
    return [{ dateFrom }, ...fallbacks(now, dateFrom, historyDays)];
  }
  return [
    { dateFrom: daysBefore(now, INITIAL_HISTORY_DAYS), strategy: "longest" },
    ...fallbacks(now, "", null),
  ];
}

/**
 * A sync's read: from REREAD_DAYS before the last sync, or back to the
 * oldest pending entry held (within PENDING_REREAD_LIMIT_DAYS), whichever is
 * earlier; never further back than the bank allows; shorter windows after.
 */
export function syncWindows(input: {
  now: Date;
  lastSyncedAt: Date | null;
  oldestPendingDay: string | null;
  historyDays: number | null;
  /**
   * The account's rows were stored under their old identities: every day a
   * later sync may read again is read, to re-identify them (docs/ingest.md).
   */
  reidentify?: boolean;
}): ReadWindow[] {
  const { now, historyDays } = input;
  const since = input.lastSyncedAt ?? new Date(now.getTime() - INITIAL_HISTORY_DAYS * DAY_MS);
  let dateFrom = daysBefore(since, REREAD_DAYS);
  const deepestReread = daysBefore(now, PENDING_REREAD_LIMIT_DAYS);
  if (input.reidentify && deepestReread < dateFrom) dateFrom = deepestReread;
  if (input.oldestPendingDay !== null) {
    const pending = input.oldestPendingDay < deepestReread ? deepestReread : input.oldestPendingDay;
    if (pending < dateFrom) dateFrom = pending;
  }
  if (historyDays !== null) {
    const deepest = daysBefore(now, historyDays);
    if (dateFrom < deepest) dateFrom = deepest;
  }
  return [{ dateFrom }, ...fallbacks(now, dateFrom, historyDays)];
}

/**
 * The depth to keep for the account after a read: the accepted window's
 * when the bank refused an earlier one, else what was kept.
 */
export function historyDaysAfter(
  windows: readonly ReadWindow[],
  accepted: ReadWindow,
  now: Date,
  historyDays: number | null,
): number | null {
  const first = windows[0];
  const refused = accepted.dateFrom !== first?.dateFrom || accepted.strategy !== first.strategy;
  return refused ? depthOf(accepted, now) : historyDays;
}
