import type { SandboxAccount } from "./accounts";
import { monthIndex, toCalendarDay } from "./calendar";
import { counterpartyAccount, draft, toLocalMinor, type Draft } from "./drafts";
import { MERCHANTS } from "./merchants";
import { seededRandom } from "./seeded-random";

/**
 * A savings account: a standing transfer in on the 1st of every month and
 * interest on the last day of every quarter, since January 2020. Its balance
 * is therefore a closed form of the date, with no history to replay.
 */

/** Day number of 2020-01-01, the first month the savings formula counts. */
const SAVINGS_EPOCH_DAY = Date.UTC(2020, 0, 1) / (24 * 60 * 60 * 1000);

export interface SavingsProfile {
  openingMinor: number;
  depositMinor: number;
  interestMinor: number;
}

export function savingsProfileOf(account: SandboxAccount): SavingsProfile {
  const random = seededRandom("savings", account.seed);
  const scale = account.kind === "business-savings" ? 8 : 1;
  return {
    openingMinor: toLocalMinor(account, random.int(500, 5000) * 100 * scale, true),
    depositMinor: toLocalMinor(account, random.int(100, 500) * 100 * scale, true),
    interestMinor: toLocalMinor(account, random.int(500, 4000) * scale),
  };
}

const isQuarterEnd = (day: number) => {
  const { month, isLastOfMonth } = toCalendarDay(day);
  return isLastOfMonth && month % 3 === 0;
};

/** Booked balance at the end of `day`: opening + every deposit and interest up to it. */
export function savingsBalanceAtEndOf(profile: SavingsProfile, day: number): number {
  if (day < SAVINGS_EPOCH_DAY) return profile.openingMinor;
  const months = monthIndex(day);
  const deposits = months + 1; // the 1st of this month has passed
  const interests = Math.floor(months / 3) + (isQuarterEnd(day) ? 1 : 0);
  return profile.openingMinor + deposits * profile.depositMinor + interests * profile.interestMinor;
}

export function savingsDay(account: SandboxAccount, profile: SavingsProfile, day: number): Draft[] {
  if (day < SAVINGS_EPOCH_DAY) return [];
  const words = MERCHANTS[account.country].words;
  const drafts: Draft[] = [];
  if (toCalendarDay(day).dayOfMonth === 1) {
    drafts.push(
      draft({
        amountMinor: profile.depositMinor,
        counterparty: counterpartyAccount(account, account.ownerName),
        remittance: words.standingOrder,
        bankTransactionCode: "PMNT-RCDT-STDO",
      }),
    );
  }
  if (isQuarterEnd(day)) {
    drafts.push(
      draft({
        amountMinor: profile.interestMinor,
        remittance: words.interest,
        bankTransactionCode: "ACMT-MCOP-INTR",
      }),
    );
  }
  return drafts;
}
