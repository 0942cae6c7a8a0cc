/**
 * A moment as people read it: the date, the time and the time zone, in the
 * screen's language ("Nov 27, 2026, 2:05 PM GMT+2", "27. Nov. 2026, 13:05 MEZ").
 * Screens format the moment themselves and pass the text to their message:
 * a message that formats one argument twice, as `{at, date, medium} {at,
 * time, short}`, loses the second format once the catalogues are
 * precompiled and shows the date twice.
 */

const OPTIONS: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
  timeZoneName: "short",
};

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * `value` in `locale`, in `timeZone` (an IANA name; the runtime's own zone
 * when omitted). An invalid date gives "—" rather than throwing.
 */
export function formatDateTime(
  locale: string,
  value: Date | string | number,
  timeZone?: string,
): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return "—";
  const key = `${locale}\u0000${timeZone ?? ""}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { ...OPTIONS, timeZone });
    formats.set(key, format);
  }
  return format.format(date);
}
