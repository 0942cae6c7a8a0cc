"use client";

import { useEffect, useRef, useState } from "react";

/** An error to show; `seq` makes the same text shown twice a new error (focus moves again). */
export type ShownError = { text: string; seq: number } | null;

/** State for one screen's error: `show(text)` shows it (and moves focus to it), `clear()` hides it. */
export function useShownError() {
  const [error, setError] = useState<ShownError>(null);
  return {
    error,
    show: (text: string) => setError((previous) => ({ text, seq: (previous?.seq ?? 0) + 1 })),
    clear: () => setError(null),
  };
}

/**
 * The screen's error message (role="alert"). Focus moves to it when it
 * appears, so a keyboard or screen-reader user lands on what went wrong and
 * the next Tab continues from there.
 */
export function FocusedAlert({ error }: { error: ShownError }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (error) ref.current?.focus();
  }, [error]);
  if (!error) return null;
  return (
    <p ref={ref} className="alert" role="alert" tabIndex={-1}>
      {error.text}
    </p>
  );
}
