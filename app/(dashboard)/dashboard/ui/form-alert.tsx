"use client";

import { useEffect, useRef } from "react";

/**
 * What went wrong with a form, at its top: an alert that takes the focus
 * when it appears, so a screen reader reads it and the keyboard is there.
 */
export function FormAlert({ title, items }: { title?: string; items: string[] }) {
  const ref = useRef<HTMLDivElement>(null);
  const shown = items.join("\n");
  useEffect(() => {
    if (shown) ref.current?.focus();
  }, [shown]);
  if (items.length === 0) return null;
  return (
    <div ref={ref} className="alert" role="alert" tabIndex={-1}>
      {title ? <strong className="alert-title">{title}</strong> : null}
      {items.length === 1 && !title ? (
        <p>{items[0]}</p>
      ) : (
        <ul className="alert-list">
          {items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A field's own messages, below its input (the input names this id in aria-describedby). */
export function FieldErrors({ id, messages }: { id: string; messages: string[] | undefined }) {
  return (
    <span id={id} className="field-error">
      {messages?.join(" ") ?? ""}
    </span>
  );
}
