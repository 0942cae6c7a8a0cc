"use client";

import type { ButtonHTMLAttributes, ReactNode } from "react";

/**
 * A button that shows its action is under way: a spinner and the busy label,
 * and further presses ignored. It stays focusable (aria-disabled, not
 * disabled), so a keyboard user's place is kept while the request runs.
 */
export function BusyButton({
  busy,
  busyLabel,
  children,
  className = "button",
  onClick,
  type = "button",
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & {
  busy: boolean;
  busyLabel: string;
  children: ReactNode;
}) {
  return (
    <button
      {...rest}
      type={type}
      className={className}
      aria-disabled={busy || undefined}
      onClick={(event) => {
        if (busy) return event.preventDefault();
        onClick?.(event);
      }}
    >
      {busy ? (
        <>
          <span className="spinner" aria-hidden="true" />
          {busyLabel}
        </>
      ) : (
        children
      )}
    </button>
  );
}
