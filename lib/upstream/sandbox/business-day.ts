import type { SandboxAccount } from "./accounts";
import { bankingDayOnOrAfter, isPayday, isWeekend, toCalendarDay } from "./calendar";
import {
  billPayment,
  cardPurchases,
  counterpartyAccount,
  draft,
  periodOf,
  subscriptionsDue,
  toLocalMinor,
  type AccountProfile,
  type DayDrafts,
  type Draft,
  type Spending,
} from "./drafts";
import { MCC, MERCHANTS } from "./merchants";
import { companyName } from "./people";
import { seededRandom, type SeededRandom } from "./seeded-random";

/**
 * A day of a business current account: customer payments with invoice
 * numbers on weekdays, suppliers on Tuesdays, payroll on payday, office rent,
 * quarterly VAT, software subscriptions (One.com, MCC 4816, as in the
 * SDKs' test fixture) and card spending.
 */

function spendingsOf(account: SandboxAccount): Spending[] {
  const merchants = MERCHANTS[account.country];
  return [
    {
      probability: 0.12,
      merchants: ["Staples", "Lyreco"],
      mcc: MCC.officeSupplies,
      minCents: 1500,
      maxCents: 20_000,
    },
    {
      probability: 0.12,
      merchants: merchants.restaurants,
      mcc: MCC.restaurants,
      minCents: 2500,
      maxCents: 18_000,
    },
    { probability: 0.03, merchants: ["SAS"], mcc: MCC.airlines, minCents: 9000, maxCents: 45_000 },
    {
      probability: 0.03,
      merchants: ["Scandic Hotels"],
      mcc: MCC.hotels,
      minCents: 9000,
      maxCents: 25_000,
    },
  ];
}

function payroll(account: SandboxAccount, profile: AccountProfile, period: string): Draft {
  return draft({
    amountMinor: -profile.incomeMinor,
    remittance: `${MERCHANTS[account.country].words.payroll} ${period}`,
    bankTransactionCode: "PMNT-ICDT-SALA",
  });
}

function monthlyBills(
  account: SandboxAccount,
  profile: AccountProfile,
  random: SeededRandom,
  day: number,
  period: string,
): Draft[] {
  const merchants = MERCHANTS[account.country];
  const { month, dayOfMonth } = toCalendarDay(day);
  const firstBankingDay = bankingDayOnOrAfter(day - dayOfMonth + 1);
  const bills: Draft[] = [];
  if (day === firstBankingDay) {
    const rent = `${merchants.words.rent} ${period}`;
    bills.push(billPayment(account, random, profile.landlord, profile.rentMinor, rent));
    // Quarterly VAT, paid with the rent in March, June, September and December.
    if (month % 3 === 0) {
      const vat = toLocalMinor(account, random.int(2000, 6000) * 100, true);
      const line = `${merchants.words.vat} ${period}`;
      bills.push(billPayment(account, random, merchants.utilities.tax, vat, line));
    }
  }
  if (day === bankingDayOnOrAfter(firstBankingDay + 19)) {
    const fee = toLocalMinor(account, random.int(3000, 9000));
    bills.push(billPayment(account, random, merchants.utilities.accounting, fee));
  }
  return [...bills, ...subscriptionsDue(account, profile, dayOfMonth)];
}

function weekdayTrade(account: SandboxAccount, random: SeededRandom, weekday: number): Draft[] {
  const words = MERCHANTS[account.country].words;
  const trade: Draft[] = [];
  const customerPayments = random.chance(0.35) ? random.int(1, 2) : 0;
  for (let i = 0; i < customerPayments; i += 1) {
    const invoice = String(10_000 + random.int(0, 89_999));
    trade.push(
      draft({
        amountMinor: toLocalMinor(account, random.int(40_000, 400_000)),
        counterparty: counterpartyAccount(account, companyName(random, account.country)),
        remittance: `${words.invoice} ${invoice}`,
        referenceNumber: invoice,
      }),
    );
  }
  if (weekday === 2 && random.chance(0.6)) {
    const supplier = companyName(random, account.country);
    const amount = toLocalMinor(account, random.int(30_000, 250_000));
    trade.push(billPayment(account, random, supplier, amount));
  }
  return trade;
}

export function businessDay(
  account: SandboxAccount,
  profile: AccountProfile,
  day: number,
): DayDrafts {
  const random = seededRandom("day", account.seed, day);
  const { year, month, weekday } = toCalendarDay(day);
  const period = periodOf(year, month);
  return {
    beforeSweep: isPayday(day) ? [payroll(account, profile, period)] : [],
    afterSweep: [
      ...monthlyBills(account, profile, random, day, period),
      ...(isWeekend(day) ? [] : weekdayTrade(account, random, weekday)),
      ...cardPurchases(account, random, day, spendingsOf(account)),
    ],
  };
}

/** The card acquirer that settles a shop's terminal sales, per country. */
const ACQUIRERS = {
  DK: "Nets Denmark",
  SE: "Nets Sweden",
  NO: "Nets Norway",
  FI: "Nets Finland",
  DE: "Worldline Germany",
  NL: "Worldline Netherlands",
} as const;

/**
 * A shop's day: the business day, then its card-terminal sales settled in
 * batches through the day (more on Saturdays, none on Sundays).
 */
export function merchantDay(
  account: SandboxAccount,
  profile: AccountProfile,
  day: number,
): DayDrafts {
  const base = businessDay(account, profile, day);
  const { weekday } = toCalendarDay(day);
  if (weekday === 0) return base;
  const random = seededRandom("sales", account.seed, day);
  const batches = weekday === 6 ? random.int(16, 24) : random.int(10, 18);
  const acquirer = ACQUIRERS[account.country];
  const sales: Draft[] = [];
  for (let batch = 1; batch <= batches; batch += 1) {
    const reference = `${day}${String(batch).padStart(2, "0")}`;
    sales.push(
      draft({
        amountMinor: toLocalMinor(account, random.int(2_000, 45_000)),
        counterparty: counterpartyAccount(account, acquirer),
        remittance: `${acquirer} settlement ${reference}`,
        bankTransactionCode: "PMNT-RCDT-ESCT",
        referenceNumber: reference,
      }),
    );
  }
  return { beforeSweep: base.beforeSweep, afterSweep: [...base.afterSweep, ...sales] };
}
