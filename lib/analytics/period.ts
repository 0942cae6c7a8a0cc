/**
 * The periods the analytics can be read for. Counts are stored per UTC hour;
 * the last 24 hours are read hour by hour, longer periods UTC day by UTC day.
 * Each period ends with the hour or day that is running now, so today's
 * flows are included as they come.
 */

export const PERIODS = ["24h", "7d", "30d"] as const;
export type Period = (typeof PERIODS)[number];
export const DEFAULT_PERIOD: Period = "7d";

export type Unit = "hour" | "day";

export interface PeriodWindow {
  period: Period;
  /** The first instant in the period. */
  from: Date;
  /** The first instant after it. */
  to: Date;
  unit: Unit;
  /** The start of each hour or day, oldest first. */
  starts: Date[];
}

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

const SHAPES = {
  "24h": { unit: "hour", length: 24, step: HOUR_MS },
  "7d": { unit: "day", length: 7, step: DAY_MS },
  "30d": { unit: "day", length: 30, step: DAY_MS },
} as const satisfies Record<Period, { unit: Unit; length: number; step: number }>;

export function parsePeriod(value: string | null | undefined): Period | null {
  return PERIODS.find((period) => period === value) ?? null;
}

/** The start of the UTC hour or day `at` falls in. */
export function startOf(unit: Unit, at: Date): Date {
  const step = unit === "hour" ? HOUR_MS : DAY_MS;
  return new Date(Math.floor(at.getTime() / step) * step);
}

export function periodWindow(period: Period, now: Date): PeriodWindow {
  const { unit, length, step } = SHAPES[period];
  const to = new Date(startOf(unit, now).getTime() + step);
  const from = new Date(to.getTime() - length * step);
  const starts = Array.from({ length }, (_, i) => new Date(from.getTime() + i * step));
  return { period, from, to, unit, starts };
}
