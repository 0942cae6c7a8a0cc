import type { SandboxAccount } from "./accounts";
import { COUNTERPARTY_BANKS } from "./banks";
import { randomBban, toIban } from "./iban";
import { keptValues } from "./kept";
import {
  BUSINESS_SUBSCRIPTIONS,
  MCC,
  MERCHANTS,
  PERSONAL_SUBSCRIPTIONS,
  type Subscription,
} from "./merchants";
import { seededRandom, type SeededRandom } from "./seeded-random";

/**
 * The building blocks of a sandbox day: a Draft is a transaction before the
 * ledger gives it a running balance and an entry reference. The rules of a
 * day live in personal-day.ts and business-day.ts; they are pure functions of
 * (account seed, day), so the same day always gives the same transactions
 * (docs/architecture.md#upstream-aggregators).
 */

export interface Counterparty {
  name: string;
  iban: string | null;
  bban: string | null;
  bic: string | null;
}

export interface Draft {
  /** Signed minor units: positive is a credit, negative a debit. */
  amountMinor: number;
  counterparty: Counterparty | null;
  remittance: string;
  /** ISO 20022 Domain-Family-SubFamily. */
  bankTransactionCode: string;
  merchantCategoryCode: string | null;
  referenceNumber: string | null;
  /** A card purchase is booked up to two days after it was made. */
  transactionDay: number | null;
  /** Local units per foreign unit, for purchases in another currency. */
  exchangeRate: string | null;
}

/** Income comes before the payday sweep (ledger.ts); everything else after it. */
export interface DayDrafts {
  beforeSweep: Draft[];
  afterSweep: Draft[];
}

/** An account's fixed amounts, from its uid: the same on every call. */
export interface AccountProfile {
  /** Net salary (personal), or the payroll (business). */
  incomeMinor: number;
  rentMinor: number;
  /** The balance the payday sweep restores (ledger.ts). */
  targetMinor: number;
  employer: string;
  landlord: string;
  subscriptions: readonly Subscription[];
}

/** Euro cents → local minor units; `whole` rounds to whole units (salaries, rents). */
export function toLocalMinor(account: SandboxAccount, euroCents: number, whole = false): number {
  const local = euroCents * account.unitsPerEuro;
  return whole ? Math.round(local / 100) * 100 : Math.round(local);
}

const euros = (random: SeededRandom, min: number, max: number) => random.int(min, max) * 100;

export function profileOf(account: SandboxAccount): AccountProfile {
  const random = seededRandom("profile", account.seed);
  const merchants = MERCHANTS[account.country];
  const business = account.kind === "business" || account.kind === "merchant";
  const salaryMinor = toLocalMinor(account, euros(random, 2800, 4200), true);
  const payrollMinor = toLocalMinor(account, euros(random, 6000, 12_000), true);
  const rentMinor = business
    ? toLocalMinor(account, euros(random, 1500, 3000), true)
    : toLocalMinor(account, euros(random, 850, 1300), true);
  const catalogue = business ? BUSINESS_SUBSCRIPTIONS : PERSONAL_SUBSCRIPTIONS;
  return {
    incomeMinor: business ? payrollMinor : salaryMinor,
    rentMinor,
    // Personal: one month's salary after the sweep covers rent and spending until next payday.
    targetMinor: business
      ? toLocalMinor(account, euros(random, 25_000, 60_000), true)
      : salaryMinor,
    employer: random.pick(merchants.employers),
    landlord: random.pick(merchants.landlords),
    subscriptions: catalogue.filter(() => random.chance(0.75)),
  };
}

/**
 * The accounts drawn for counterparties, by country and name, kept once
 * drawn: a draw is seeded by both, so it is the same every time, and a
 * shop's card acquirer alone settles some fifteen batches a day.
 */
const counterparties = keptValues<Readonly<Counterparty>>(10_000);

/** A counterparty with a valid IBAN at one of the country's banks, stable per name. */
export function counterpartyAccount(account: SandboxAccount, name: string): Counterparty {
  return counterparties(`${account.country}|${name}`, () => {
    const random = seededRandom("counterparty", account.country, name);
    const bank = random.pick(COUNTERPARTY_BANKS.filter((each) => each.country === account.country));
    const bban = randomBban(account.country, bank.bankCode, random);
    return Object.freeze({ name, iban: toIban(account.country, bban), bban, bic: bank.bic });
  });
}

const merchant = (name: string): Counterparty => ({ name, iban: null, bban: null, bic: null });

export function draft(fields: Partial<Draft> & Pick<Draft, "amountMinor" | "remittance">): Draft {
  return {
    counterparty: null,
    bankTransactionCode: fields.amountMinor >= 0 ? "PMNT-RCDT-ESCT" : "PMNT-ICDT-ESCT",
    merchantCategoryCode: null,
    referenceNumber: null,
    transactionDay: null,
    exchangeRate: null,
    ...fields,
  };
}

/** `MM/YYYY`, for salary and rent lines. */
export const periodOf = (year: number, month: number) =>
  `${String(month).padStart(2, "0")}/${year}`;

/** One kind of card spending: how likely on a day, where, and how much (euro cents). */
export interface Spending {
  probability: number;
  merchants: readonly string[];
  mcc: string;
  minCents: number;
  maxCents: number;
}

export function cardPurchase(
  account: SandboxAccount,
  random: SeededRandom,
  day: number,
  spending: Spending,
): Draft {
  const name = random.pick(spending.merchants);
  const city = random.pick(MERCHANTS[account.country].cities);
  return draft({
    amountMinor: -toLocalMinor(account, random.int(spending.minCents, spending.maxCents)),
    counterparty: merchant(name),
    remittance: `${name} ${city}`,
    bankTransactionCode: "PMNT-CCRD-POSD",
    merchantCategoryCode: spending.mcc,
    transactionDay: day - random.int(0, 2),
  });
}

/** Card spending of one day, each kind drawn independently. */
export function cardPurchases(
  account: SandboxAccount,
  random: SeededRandom,
  day: number,
  spendings: readonly Spending[],
): Draft[] {
  return spendings.flatMap((spending) =>
    random.chance(spending.probability) ? [cardPurchase(account, random, day, spending)] : [],
  );
}

/** A purchase in a foreign currency (EUR on DKK/SEK/NOK accounts, USD on EUR ones). */
export function foreignPurchase(account: SandboxAccount, random: SeededRandom, day: number): Draft {
  const foreign = account.currency === "EUR" ? "USD" : "EUR";
  const base = account.currency === "EUR" ? 0.92 : account.unitsPerEuro;
  const rate = Number((base * (1 + (random.next() - 0.5) * 0.02)).toFixed(4));
  const foreignCents = random.int(900, 9000);
  return draft({
    amountMinor: -Math.round(foreignCents * rate),
    counterparty: merchant("Amazon Marketplace"),
    remittance: `Amazon Marketplace ${foreign} ${(foreignCents / 100).toFixed(2)}`,
    bankTransactionCode: "PMNT-CCRD-POSD",
    merchantCategoryCode: MCC.books,
    transactionDay: day - random.int(0, 2),
    exchangeRate: rate.toFixed(4),
  });
}

export function subscriptionsDue(
  account: SandboxAccount,
  profile: AccountProfile,
  dayOfMonth: number,
): Draft[] {
  return profile.subscriptions
    .filter((subscription) => subscription.day === dayOfMonth)
    .map((subscription) =>
      draft({
        amountMinor: -toLocalMinor(account, subscription.euroCents),
        counterparty: merchant(subscription.name),
        remittance: subscription.name,
        bankTransactionCode: "PMNT-CCRD-POSD",
        merchantCategoryCode: subscription.mcc,
      }),
    );
}

/** A payment slip / direct debit with the payee's account and a 16-digit reference. */
export function billPayment(
  account: SandboxAccount,
  random: SeededRandom,
  payee: string,
  amountMinor: number,
  remittance: string = payee,
): Draft {
  return draft({
    amountMinor: -amountMinor,
    counterparty: counterpartyAccount(account, payee),
    remittance,
    bankTransactionCode: "PMNT-RDDT-ESDD",
    referenceNumber: Array.from({ length: 16 }, () => random.int(0, 9)).join(""),
  });
}
