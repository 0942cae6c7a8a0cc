"use client";

import { useEffect, useRef, type ReactNode } from "react";

/**
 * A message the person must read first (a wrong code, a link that cannot
 * work): announced as an alert and given focus when the page loads, so
 * keyboard and screen-reader users land on it.
 */
export function FocusMessage({
  id,
  tone = "error",
  children,
}: {
  /** For a field the message is about (its aria-describedby). */
  id?: string;
  tone?: "error" | "info" | "warn" | "success";
  children: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return (
    <div ref={ref} id={id} className={`alert alert-${tone}`} role="alert" tabIndex={-1}>
      {children}
    </div>
  );
}
