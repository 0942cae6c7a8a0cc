import type { SandboxAccount } from "./accounts";
import { bankingDayOnOrAfter, isPayday, isWeekend, toCalendarDay } from "./calendar";
import {
  billPayment,
  cardPurchases,
  counterpartyAccount,
  draft,
  foreignPurchase,
  periodOf,
  subscriptionsDue,
  toLocalMinor,
  type AccountProfile,
  type DayDrafts,
  type Draft,
  type Spending,
} from "./drafts";
import { MCC, MERCHANTS } from "./merchants";
import { personName } from "./people";
import { seededRandom, type SeededRandom } from "./seeded-random";

/**
 * A day of a personal current (or joint) account: salary on payday, rent on
 * the first banking day, utility bills, subscriptions with their merchant
 * category codes, card spending and the odd payment-app transfer.
 */

function spendingsOf(account: SandboxAccount, weekend: boolean): Spending[] {
  const merchants = MERCHANTS[account.country];
  return [
    {
      probability: weekend ? 0.65 : 0.5,
      merchants: merchants.groceries,
      mcc: MCC.groceries,
      minCents: 800,
      maxCents: 7500,
    },
    {
      probability: 0.15,
      merchants: merchants.restaurants,
      mcc: MCC.restaurants,
      minCents: 1200,
      maxCents: 6000,
    },
    {
      probability: weekend ? 0.05 : 0.3,
      merchants: [merchants.transit],
      mcc: MCC.transit,
      minCents: 250,
      maxCents: 600,
    },
    { probability: 0.05, merchants: merchants.fuel, mcc: MCC.fuel, minCents: 4000, maxCents: 8000 },
    {
      probability: 0.04,
      merchants: ["Elgiganten", "Zalando"],
      mcc: MCC.electronics,
      minCents: 1500,
      maxCents: 15_000,
    },
  ];
}

/** Salary, or on a joint account both partners' standing transfers. */
function income(account: SandboxAccount, profile: AccountProfile, period: string): Draft[] {
  const words = MERCHANTS[account.country].words;
  if (account.kind !== "joint") {
    return [
      draft({
        amountMinor: profile.incomeMinor,
        counterparty: counterpartyAccount(account, profile.employer),
        remittance: `${words.salary} ${period}`,
        bankTransactionCode: "PMNT-RCDT-SALA",
      }),
    ];
  }
  return [0.55, 0.45].map((share) => {
    const partner = personName(seededRandom("partner", account.seed, share), account.country);
    return draft({
      amountMinor: Math.round(profile.incomeMinor * share),
      counterparty: counterpartyAccount(account, partner),
      remittance: `${words.standingOrder} ${partner}`,
      bankTransactionCode: "PMNT-RCDT-STDO",
    });
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
  const { dayOfMonth } = toCalendarDay(day);
  const firstBankingDay = bankingDayOnOrAfter(day - dayOfMonth + 1);
  const bills: Draft[] = [];
  if (day === firstBankingDay) {
    const rent = `${merchants.words.rent} ${period}`;
    bills.push(billPayment(account, random, profile.landlord, profile.rentMinor, rent));
  }
  if (day === bankingDayOnOrAfter(firstBankingDay + 9)) {
    const power = toLocalMinor(account, random.int(4500, 9500));
    bills.push(billPayment(account, random, merchants.utilities.power, power));
  }
  if (day === bankingDayOnOrAfter(firstBankingDay + 19)) {
    const { telecom, insurance } = merchants.utilities;
    bills.push(billPayment(account, random, telecom, toLocalMinor(account, 2900)));
    bills.push(billPayment(account, random, insurance, toLocalMinor(account, 4200)));
  }
  return [...bills, ...subscriptionsDue(account, profile, dayOfMonth)];
}

function paymentAppTransfer(account: SandboxAccount, random: SeededRandom): Draft {
  const friend = personName(random, account.country);
  const sign = random.chance(0.5) ? 1 : -1;
  return draft({
    amountMinor: sign * toLocalMinor(account, random.int(10, 80) * 100, true),
    counterparty: { name: friend, iban: null, bban: null, bic: null },
    remittance: `${MERCHANTS[account.country].paymentApp} ${friend}`,
  });
}

export function personalDay(
  account: SandboxAccount,
  profile: AccountProfile,
  day: number,
): DayDrafts {
  const random = seededRandom("day", account.seed, day);
  const { year, month } = toCalendarDay(day);
  const period = periodOf(year, month);
  const afterSweep = [
    ...monthlyBills(account, profile, random, day, period),
    ...cardPurchases(account, random, day, spendingsOf(account, isWeekend(day))),
  ];
  if (random.chance(0.03)) afterSweep.push(foreignPurchase(account, random, day));
  if (random.chance(0.06)) afterSweep.push(paymentAppTransfer(account, random));
  return {
    beforeSweep: isPayday(day) ? income(account, profile, period) : [],
    afterSweep,
  };
}
