import { timingSafeEqualString } from "../crypto/constant-time";
import { keyedHash } from "../crypto/keyed-hash";
import type { ReadWritten } from "./fetch-and-store";
import {
  pendingNotSeen,
  removeTransactions,
  takePendingIds,
  type StoredPending,
} from "./queries/transactions";
import type { InsertedRow } from "./write";
import { PENDING_REREAD_LIMIT_DAYS } from "./windows";
import type { RunStatement } from "./write-transaction";

/**
 * Pending transactions after a read (docs/ingest.md#pending-transactions).
 * The bank's list of pending entries is the truth: once a read has stored
 * what it reported, every pending row it did not report is either
 *
 * - the same payment, reported again as a new row (booked, or still pending
 *   under another identity: a new id, a tip, a conversion): the new row takes
 *   the pending row's id, so a partner sees one transaction change, or
 * - gone (an authorization released, a payment cancelled): it is removed.
 *
 * Either way exactly one row is left of each payment. Matching is done on
 * keyed hashes (lib/banking/identity.ts): the same counterparty, currency
 * and direction, an equal amount preferred, the nearest day preferred.
 */

/**
 * How long after a pending entry's day its booked version may be dated: as
 * long as a sync reads back for pending entries (an authorization lasts up
 * to a month).
 */
export const BOOKING_DELAY_DAYS = PENDING_REREAD_LIMIT_DAYS;
const DAY_MS = 24 * 60 * 60 * 1000;

const dayNumber = (day: string | null) => (day ? Date.parse(`${day}T00:00:00Z`) / DAY_MS : null);

interface Candidate {
  inserted: InsertedRow;
  matchHash: string;
  amountHash: string;
  day: number | null;
}

/** Whether `candidate` may be `pending` again, and how well (lower is better); null if not. */
function distance(pending: StoredPending, candidate: Candidate): number | null {
  if (!pending.matchHash || !timingSafeEqualString(pending.matchHash, candidate.matchHash)) {
    return null;
  }
  const pendingDay = dayNumber(pending.day);
  let days = 0;
  if (pendingDay !== null && candidate.day !== null) {
    // A booking is dated on or after the payment (a day earlier for a bank in another time zone).
    days = candidate.day - pendingDay;
    if (days < -1 || days > BOOKING_DELAY_DAYS) return null;
  }
  // Still pending under another identity, the same payment keeps the day it was made.
  const stillPending = candidate.inserted.row.status === "PDNG";
  if (stillPending && days !== 0) return null;
  const sameAmount =
    pending.amountHash !== null && timingSafeEqualString(pending.amountHash, candidate.amountHash);
  // On a tie, the payment's booked version before another pending entry.
  return (sameAmount ? 0 : 100) + Math.abs(days) + (stillPending ? 0.5 : 0);
}

/**
 * Replaces and removes the pending rows the read did not report, in the
 * read's write transaction. Returns how many new rows replaced one (they are
 * not new transactions to a partner).
 */
export async function settlePending(
  run: RunStatement,
  accountId: string,
  written: ReadWritten,
): Promise<number> {
  const vanished = await pendingNotSeen(run, accountId, [...written.pendingSeen]);
  if (vanished.length === 0) return 0;
  const candidates: Candidate[] = written.inserted.map((inserted) => ({
    inserted,
    matchHash: inserted.row.matchHash ?? keyedHash("transaction-match", inserted.row.matchValue),
    amountHash:
      inserted.row.amountHash ?? keyedHash("transaction-amount", inserted.row.amountValue),
    day: dayNumber(inserted.row.bookingDate ?? inserted.row.transactionDate),
  }));
  const taken = new Set<Candidate>();
  const pairs: [pendingId: string, newId: string][] = [];
  for (const pending of vanished) {
    let best: { candidate: Candidate; score: number } | null = null;
    for (const candidate of candidates) {
      if (taken.has(candidate)) continue;
      const score = distance(pending, candidate);
      if (score !== null && (best === null || score < best.score)) best = { candidate, score };
    }
    if (!best) continue;
    taken.add(best.candidate);
    pairs.push([pending.id, best.candidate.inserted.id]);
  }
  // The pending rows go first: their ids are then free for the rows replacing them.
  await removeTransactions(
    run,
    accountId,
    vanished.map((pending) => pending.id),
  );
  if (pairs.length > 0) await takePendingIds(run, accountId, pairs);
  return pairs.length;
}
