import { keptValues } from "./kept";

/**
 * Calendar days for the sandbox ledger, as integers (days since 1970-01-01,
 * UTC) so that ranges are plain loops. Wire dates are `YYYY-MM-DD`
 * (/docs/data).
 */

export const DAY_MS = 24 * 60 * 60 * 1000;

export function toDayNumber(date: Date): number {
  return Math.floor(date.getTime() / DAY_MS);
}

/** Days already formatted or taken apart: a history names the same few hundred days thousands of times. */
const DAYS_KEPT = 8192;
const isoDays = keptValues<string, number>(DAYS_KEPT);
const calendarDays = keptValues<CalendarDay, number>(DAYS_KEPT);

export function toIsoDay(day: number): string {
  return isoDays(day, () => new Date(day * DAY_MS).toISOString().slice(0, 10));
}

/** A real calendar date `YYYY-MM-DD`, or null. */
export function parseIsoDay(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const time = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(time)) return null;
  const day = time / DAY_MS;
  return toIsoDay(day) === text ? day : null; // refuses 2026-02-30
}

export interface CalendarDay {
  readonly year: number;
  /** 1..12 */
  readonly month: number;
  /** 1..31 */
  readonly dayOfMonth: number;
  /** 0 = Sunday … 6 = Saturday */
  readonly weekday: number;
  readonly isLastOfMonth: boolean;
}

export function toCalendarDay(day: number): CalendarDay {
  return calendarDays(day, () => {
    const date = new Date(day * DAY_MS);
    const tomorrow = new Date((day + 1) * DAY_MS);
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      dayOfMonth: date.getUTCDate(),
      weekday: date.getUTCDay(),
      isLastOfMonth: tomorrow.getUTCDate() === 1,
    };
  });
}

export function dayOf(year: number, month: number, dayOfMonth: number): number {
  return Date.UTC(year, month - 1, dayOfMonth) / DAY_MS;
}

export const isWeekend = (day: number) => {
  const weekday = toCalendarDay(day).weekday;
  return weekday === 0 || weekday === 6;
};

/** The banking day on or before `day` (weekends move back to Friday). */
export function bankingDayOnOrBefore(day: number): number {
  let result = day;
  while (isWeekend(result)) result -= 1;
  return result;
}

/** The banking day on or after `day` (weekends move on to Monday). */
export function bankingDayOnOrAfter(day: number): number {
  let result = day;
  while (isWeekend(result)) result += 1;
  return result;
}

/** Nordic and Dutch salaries are paid on the 25th, or the banking day before it. */
export function paydayOfMonth(year: number, month: number): number {
  return bankingDayOnOrBefore(dayOf(year, month, 25));
}

export function isPayday(day: number): boolean {
  const { year, month } = toCalendarDay(day);
  return paydayOfMonth(year, month) === day;
}

/** The latest payday on or before `day`. */
export function paydayOnOrBefore(day: number): number {
  const { year, month } = toCalendarDay(day);
  const thisMonth = paydayOfMonth(year, month);
  if (thisMonth <= day) return thisMonth;
  return month === 1 ? paydayOfMonth(year - 1, 12) : paydayOfMonth(year, month - 1);
}

/** Months since January 2020: the epoch of the savings accounts' closed-form balance. */
export function monthIndex(day: number): number {
  const { year, month } = toCalendarDay(day);
  return (year - 2020) * 12 + (month - 1);
}
