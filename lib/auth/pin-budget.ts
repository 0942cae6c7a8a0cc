import type { Prisma } from "../db/client";
import { addressKey, clientKey } from "./sign-in-limits";
import { lockName } from "../db/queries/locks";

/**
 * The PIN's guess budget (docs/sign-in-limits.md has the arithmetic). Each
 * challenge takes 5 attempts, but challenges can be asked for again and
 * again, so wrong PINs are also counted across challenges, per email address
 * and per client address, in PostgreSQL (never in the fail-open rate-limit
 * store). When the address's budget is spent its PIN path closes; the magic
 * link keeps working, so the person it belongs to is never locked out.
 */

export const PIN_BUDGET = {
  /** Wrong PINs per address in any 24 hours; the one that reaches it closes the PIN path. */
  addressPerDay: 10,
  /** Wrong PINs per address in any 365 days, however slowly they come. */
  addressPerYear: 100,
  /** The first closure; each later one twice the one before, up to 256 days. */
  firstClosureMs: 24 * 60 * 60_000,
  maxDoublings: 8,
  /**
   * Wrong PINs from one client address, whatever the email address, per hour
   * and per 24 hours; once reached, they refuse the addresses that had a wrong
   * PIN of their own in the past 365 days (pinBudgetRefusal).
   */
  clientPerHour: 20,
  clientPerDay: 50,
} as const;

const HOUR_MS = 60 * 60_000;
const DAY_MS = 24 * HOUR_MS;
const YEAR_MS = 365 * DAY_MS;

export interface PinBudgetKeys {
  address: string;
  client: string;
}

/** The email is normalized; the client address is the stamped one. */
export const pinBudgetKeys = (email: string, clientIp: string): PinBudgetKeys => ({
  address: addressKey(email),
  client: clientKey(clientIp),
});

export type PinBudgetRefusal =
  /** This address's PIN path is closed; the link in the mail still signs in. */
  | { status: "pin_closed"; retryAfterSeconds: number }
  /** Too many wrong PINs from this client address, whichever addresses they were for. */
  | { status: "too_many_failures"; retryAfterSeconds: number };

type Tx = Prisma.TransactionClient;

/**
 * Serializes the PIN checks of one address and of one client address until
 * the transaction ends, so concurrent guesses are counted one after another
 * and cannot overshoot. Always the address first: no two checks can wait on
 * each other in a cycle.
 */
export async function lockPinBudget(tx: Tx, keys: PinBudgetKeys): Promise<void> {
  for (const lock of [`pin-address:${keys.address}`, `pin-client:${keys.client}`]) {
    await lockName(tx, lock);
  }
}

/**
 * Whether the budget refuses a PIN check now (read it under lockPinBudget to
 * act on it): the address's closure or year, then the client address's hour
 * and day, the latter only for an address that has failures of its own.
 */
export async function pinBudgetRefusal(
  tx: Tx,
  keys: PinBudgetKeys,
  now: Date,
): Promise<PinBudgetRefusal | null> {
  const closure = await tx.pinClosure.findUnique({ where: { addressKey: keys.address } });
  if (closure && closure.closedUntil > now) return pinClosed(closure.closedUntil, now);
  const address = { addressKey: keys.address };
  const ownThisYear = await countSince(tx, address, YEAR_MS, now);
  if (ownThisYear >= PIN_BUDGET.addressPerYear) {
    const yearly = await fullUntil(tx, address, YEAR_MS, PIN_BUDGET.addressPerYear, now);
    return pinClosed(yearly ?? now, now);
  }
  // The client address's ceiling stops guessing across addresses; it does
  // not refuse an address with no wrong code of its own in the past year, so
  // the people behind a shared address (an office's, a mobile carrier's) are
  // not locked out by the others' typos. Such an address gets one checked
  // guess: once it is wrong, the address has a failure and the ceiling
  // applies to it as well (under lockPinBudget, so concurrent guesses at it
  // are counted one after another).
  if (ownThisYear === 0) return null;
  const client = { clientKey: keys.client };
  const full =
    (await fullUntil(tx, client, HOUR_MS, PIN_BUDGET.clientPerHour, now)) ??
    (await fullUntil(tx, client, DAY_MS, PIN_BUDGET.clientPerDay, now));
  return full ? { status: "too_many_failures", retryAfterSeconds: secondsUntil(full, now) } : null;
}

/**
 * Records one wrong PIN (under lockPinBudget). The one that fills the
 * address's day closes its PIN path: 24 hours the first time, then 48, 96…
 * as long as the previous closure ended less than a year ago.
 */
export async function recordWrongPin(
  tx: Tx,
  keys: PinBudgetKeys,
  now: Date,
): Promise<{ closed: PinBudgetRefusal | null; addressLeft: number }> {
  await tx.pinFailure.create({
    data: { addressKey: keys.address, clientKey: keys.client, at: now },
  });
  // Failures older than any window are no longer needed (by the wall clock; tests move `now`).
  await tx.pinFailure.deleteMany({
    where: { at: { lt: new Date(Date.now() - YEAR_MS - DAY_MS) } },
  });

  const address = { addressKey: keys.address };
  const today = await countSince(tx, address, DAY_MS, now);
  const thisYear = await countSince(tx, address, YEAR_MS, now);
  if (thisYear >= PIN_BUDGET.addressPerYear) {
    const until = await fullUntil(tx, address, YEAR_MS, PIN_BUDGET.addressPerYear, now);
    return { closed: pinClosed(until ?? now, now), addressLeft: 0 };
  }
  if (today < PIN_BUDGET.addressPerDay) {
    const addressLeft = Math.min(
      PIN_BUDGET.addressPerDay - today,
      PIN_BUDGET.addressPerYear - thisYear,
    );
    return { closed: null, addressLeft };
  }
  const previous = await tx.pinClosure.findUnique({ where: { addressKey: keys.address } });
  const remembered = previous && previous.closedUntil.getTime() + YEAR_MS > now.getTime();
  const closures = remembered ? previous.closures + 1 : 1;
  const lengthMs = PIN_BUDGET.firstClosureMs * 2 ** Math.min(closures - 1, PIN_BUDGET.maxDoublings);
  const closedUntil = new Date(now.getTime() + lengthMs);
  await tx.pinClosure.upsert({
    where: { addressKey: keys.address },
    create: { addressKey: keys.address, closures, closedUntil },
    update: { closures, closedUntil },
  });
  return { closed: pinClosed(closedUntil, now), addressLeft: 0 };
}

type FailureScope = { addressKey: string } | { clientKey: string };

/**
 * Failures since the window's start, with no upper bound: a request reads
 * its clock before it waits for the budget's lock, so the failures recorded
 * while it waited can carry a later time than its own and must count too.
 */
const inWindow = (windowMs: number, now: Date) => ({
  gt: new Date(now.getTime() - windowMs),
});

function countSince(tx: Tx, scope: FailureScope, windowMs: number, now: Date) {
  return tx.pinFailure.count({ where: { ...scope, at: inWindow(windowMs, now) } });
}

/**
 * When the window holds `limit` or more failures: the moment it will hold
 * one fewer than `limit` (when the oldest that keeps it full leaves it).
 * Null while there is room.
 */
async function fullUntil(
  tx: Tx,
  scope: FailureScope,
  windowMs: number,
  limit: number,
  now: Date,
): Promise<Date | null> {
  const count = await countSince(tx, scope, windowMs, now);
  if (count < limit) return null;
  const leaving = await tx.pinFailure.findFirst({
    where: { ...scope, at: inWindow(windowMs, now) },
    orderBy: { at: "asc" },
    skip: count - limit,
    select: { at: true },
  });
  return new Date((leaving?.at ?? now).getTime() + windowMs);
}

const secondsUntil = (until: Date, now: Date) =>
  Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));

const pinClosed = (until: Date, now: Date): PinBudgetRefusal => ({
  status: "pin_closed",
  retryAfterSeconds: secondsUntil(until, now),
});
