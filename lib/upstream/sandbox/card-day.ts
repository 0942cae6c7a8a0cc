import type { SandboxAccount } from "./accounts";
import { draft, toLocalMinor, type AccountProfile, type DayDrafts, type Draft } from "./drafts";
import { MCC, MERCHANTS } from "./merchants";
import { personalDay } from "./personal-day";
import { seededRandom } from "./seeded-random";

/**
 * The booked days of the scenario bank whose card payments are pending
 * until they book (banks.ts `pendingCardPayments`; what it reports while
 * they are pending is pending.ts). Its account is a personal current
 * account (personal-day.ts) where no card payment books on the day it was
 * made: each books one or two days later. Its groceries and restaurant
 * bills come every day, made the day before they book:
 *
 * - a restaurant bill, authorized for less than it books (the tip is added
 *   when it books: every restaurant payment of this bank books with one);
 * - a grocery purchase, booked for the amount authorized.
 *
 * A hotel's deposit is authorized every day and released two days later,
 * never booked (`depositOf`). All of it follows from the account's seed
 * and the day, like every other sandbox day.
 */

/** The longest a card payment of this bank waits to book, in days. */
export const LONGEST_BOOKING_DELAY_DAYS = 2;
/** A deposit is pending on the day it is made and the next, and released on the third. */
export const DEPOSIT_PENDING_DAYS = 2;

/**
 * Deposits are at hotels of their own, taken in turn (as the restaurants
 * are): a deposit released on a day shares its hotel with none authorized
 * in the days around it, so that no later deposit is taken for it.
 */
const HOTELS = [
  "Hotel Nyhavn",
  "Kystens Hotel",
  "Comfort Hotel Vesterbro",
  "Skovlyst Kro",
  "Badehotel Klitten",
  "Vandrerhjem Havnen",
] as const;

/** A card payment made by the holder (not a subscription the merchant charges). */
export const isCardPayment = (each: Draft): boolean =>
  each.bankTransactionCode === "PMNT-CCRD-POSD" && each.transactionDay !== null;

/** The name whose turn it is on `day`, the turns starting apart for each account. */
function rotation<T>(account: SandboxAccount, names: readonly T[], day: number): T {
  const offset = seededRandom("card-rotation", account.seed).int(0, names.length - 1);
  const name = names[(day + offset) % names.length];
  if (name === undefined) throw new RangeError("an empty rotation");
  return name;
}

function cityOf(account: SandboxAccount, purpose: string, day: number): string {
  return seededRandom(purpose, account.seed, day).pick(MERCHANTS[account.country].cities);
}

function cardPayment(
  account: SandboxAccount,
  fields: { name: string; mcc: string; minor: number; made: number; purpose: string },
): Draft {
  return draft({
    amountMinor: -fields.minor,
    counterparty: { name: fields.name, iban: null, bban: null, bic: null },
    remittance: `${fields.name} ${cityOf(account, fields.purpose, fields.made)}`,
    bankTransactionCode: "PMNT-CCRD-POSD",
    merchantCategoryCode: fields.mcc,
    transactionDay: fields.made,
  });
}

/** The personal day's own groceries and restaurant bills: this bank has one of each a day. */
const isDaily = (each: Draft) =>
  isCardPayment(each) &&
  (each.merchantCategoryCode === MCC.groceries || each.merchantCategoryCode === MCC.restaurants);

/** A booked day: the personal day with its card payments made earlier, and the day's two. */
export function pendingCardDay(
  account: SandboxAccount,
  profile: AccountProfile,
  day: number,
): DayDrafts {
  const { beforeSweep, afterSweep } = personalDay(account, profile, day);
  const made = day - 1;
  const random = seededRandom("card-day", account.seed, made);
  const merchants = MERCHANTS[account.country];
  return {
    beforeSweep,
    afterSweep: [
      ...afterSweep
        .filter((each) => !isDaily(each))
        .map((each) =>
          isCardPayment(each) && each.transactionDay === day
            ? { ...each, transactionDay: made }
            : each,
        ),
      cardPayment(account, {
        name: rotation(account, merchants.restaurants, made),
        mcc: MCC.restaurants,
        minor: toLocalMinor(account, random.int(500, 1500)),
        made,
        purpose: "card-restaurant",
      }),
      cardPayment(account, {
        name: random.pick(merchants.groceries),
        mcc: MCC.groceries,
        minor: toLocalMinor(account, random.int(700, 3500)),
        made,
        purpose: "card-groceries",
      }),
    ],
  };
}

/**
 * What a card payment was authorized for, from what it books for: a
 * restaurant's bill before the tip (5 to 15 %), anything else the same.
 * `position` is the booked entry's place in the ledger (its day and sequence).
 */
export function authorizedMinor(
  account: SandboxAccount,
  payment: Draft,
  position: { day: number; sequence: number },
): number {
  const booked = Math.abs(payment.amountMinor);
  if (payment.merchantCategoryCode !== MCC.restaurants) return booked;
  const percent = seededRandom("tip", account.seed, position.day, position.sequence).int(5, 15);
  return Math.round((booked * 100) / (100 + percent));
}

/** The hotel deposit authorized on `made` (pending until it is released, never booked). */
export function depositOf(account: SandboxAccount, made: number): Draft {
  const random = seededRandom("card-deposit", account.seed, made);
  return cardPayment(account, {
    name: rotation(account, HOTELS, made),
    mcc: MCC.hotels,
    minor: toLocalMinor(account, random.int(100, 300) * 100, true),
    made,
    purpose: "card-deposit",
  });
}
