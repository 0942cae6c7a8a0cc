/**
 * Numbers, shares, durations and UTC times in the reader's locale. The
 * counters are stored per UTC hour, so days and hours are shown in UTC too:
 * a day of the chart is exactly a day of the JSON API.
 */
export interface Formats {
  count: (value: number) => string;
  /** `part` of `whole` as a percentage; a dash when `whole` is 0. */
  share: (part: number, whole: number) => string;
  /** A duration in seconds: "45 s", "1 min 45 s". */
  duration: (seconds: number) => string;
  day: (start: Date) => string;
  hour: (start: Date) => string;
}

export function formatsFor(locale: string): Formats {
  const count = new Intl.NumberFormat(locale);
  const percent = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 });
  const unit = (name: "minute" | "second") =>
    new Intl.NumberFormat(locale, { style: "unit", unit: name, unitDisplay: "short" });
  const minutes = unit("minute");
  const seconds = unit("second");
  const day = new Intl.DateTimeFormat(locale, { month: "short", day: "numeric", timeZone: "UTC" });
  const hour = new Intl.DateTimeFormat(locale, {
    hour: "2-digit",
    minute: "2-digit",
    timeZone: "UTC",
  });
  return {
    count: (value) => count.format(value),
    share: (part, whole) => (whole === 0 ? "–" : percent.format(part / whole)),
    duration: (total) => {
      const whole = Math.round(total);
      const m = Math.floor(whole / 60);
      const s = whole % 60;
      if (m === 0) return seconds.format(s);
      return s === 0 ? minutes.format(m) : `${minutes.format(m)} ${seconds.format(s)}`;
    },
    day: (start) => day.format(start),
    hour: (start) => hour.format(start),
  };
}
