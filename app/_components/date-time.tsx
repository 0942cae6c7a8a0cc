"use client";

import { useLocale } from "next-intl";
import { useCallback, useSyncExternalStore } from "react";
import { formatDateTime } from "@/lib/i18n/date-time";

const noChange = () => () => {};
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
/** The server cannot know the reader's zone: it renders UTC, named as such. */
const serverZone = () => "UTC";

/**
 * Formats moments as date, time and zone (lib/i18n/date-time.ts) in the
 * reader's own time zone. The server's HTML and the first render in the
 * browser say UTC, so hydration matches; the browser then shows its own zone.
 */
export function useDateTime(): (value: Date | string | number) => string {
  const locale = useLocale();
  const zone = useSyncExternalStore(noChange, browserZone, serverZone);
  return useCallback((value) => formatDateTime(locale, value, zone), [locale, zone]);
}

/** A `<time>` element showing `value` (an ISO timestamp) as date, time and zone. */
export function DateTime({ value, className }: { value: string; className?: string }) {
  const format = useDateTime();
  return (
    <time dateTime={value} className={className}>
      {format(value)}
    </time>
  );
}
