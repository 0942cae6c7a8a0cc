"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import { DASHBOARD_CHANGED } from "./changes";
import { fetchAuditPage, type AuditEvent } from "./security-log-requests";

export type LogStatus = "loading" | "ready" | "failed";

/**
 * The security log's state: the type filter, the events shown, the cursor of
 * the next older page and whether a page is loading. The first page is read
 * again when the filter changes or another panel announces a change.
 */
export function useSecurityLog(partnerId: string) {
  const [type, setType] = useState("");
  const [events, setEvents] = useState<AuditEvent[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [status, setStatus] = useState<LogStatus>("loading");

  // Only the newest request may show its answer: a slow page for the previous
  // filter must not replace the current one.
  const latest = useRef(0);

  /** Fetches a page (the first, or the one older than `before`) and shows it unless a newer request started. */
  const load = useCallback(
    (before: string | null) => {
      const request = ++latest.current;
      void fetchAuditPage(partnerId, type, before).then((page) => {
        if (request !== latest.current) return;
        if (!page) return setStatus("failed");
        setEvents((current) => (before ? [...current, ...page.events] : page.events));
        setNext(page.next);
        setStatus("ready");
      });
    },
    [partnerId, type],
  );

  const reload = (before: string | null = null) => {
    setStatus("loading");
    load(before);
  };

  const filter = (value: string) => {
    setStatus("loading");
    setType(value);
  };

  useEffect(() => {
    load(null);
    const onChange = () => load(null);
    window.addEventListener(DASHBOARD_CHANGED, onChange);
    return () => window.removeEventListener(DASHBOARD_CHANGED, onChange);
  }, [load]);

  return { type, events, next, status, reload, filter };
}
