"use client";

import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { useScripted } from "./scripted";
import { CodeBlock } from "./code-block";

export interface CodePanel {
  label: string;
  /** The example's id, for the tests that compare it with its source. */
  exampleId: string;
  code: string;
  /** A line above the code, e.g. where to install what it imports. */
  note?: ReactNode;
}

/**
 * One example in several languages. Without the script every panel is shown,
 * one after another under its own title; with it they become tabs (WAI-ARIA
 * tabs pattern: arrow keys, Home and End move between them, the panel is
 * selected as focus moves).
 */
export function CodeTabs({ label, panels }: { label: string; panels: CodePanel[] }) {
  const base = useId();
  const enhanced = useScripted();
  const [selected, setSelected] = useState(0);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);

  function onKeyDown(event: KeyboardEvent<HTMLButtonElement>) {
    const last = panels.length - 1;
    const moves: Record<string, number> = {
      ArrowRight: selected === last ? 0 : selected + 1,
      ArrowLeft: selected === 0 ? last : selected - 1,
      Home: 0,
      End: last,
    };
    const next = moves[event.key];
    if (next === undefined) return;
    event.preventDefault();
    setSelected(next);
    tabs.current[next]?.focus();
  }

  return (
    <div className="code-tabs" data-enhanced={enhanced ? "true" : undefined}>
      {enhanced ? (
        <div role="tablist" aria-label={label}>
          {panels.map((panel, index) => (
            <button
              key={panel.exampleId}
              ref={(element) => {
                tabs.current[index] = element;
              }}
              type="button"
              role="tab"
              id={`${base}-tab-${index}`}
              aria-selected={index === selected}
              aria-controls={`${base}-panel-${index}`}
              tabIndex={index === selected ? 0 : -1}
              onClick={() => setSelected(index)}
              onKeyDown={onKeyDown}
            >
              {panel.label}
            </button>
          ))}
        </div>
      ) : null}
      {panels.map((panel, index) => (
        <div
          key={panel.exampleId}
          className="code-panel"
          data-example={panel.exampleId}
          id={`${base}-panel-${index}`}
          role={enhanced ? "tabpanel" : undefined}
          aria-labelledby={enhanced ? `${base}-tab-${index}` : undefined}
          hidden={enhanced && index !== selected}
        >
          <p className="code-panel-title">{panel.label}</p>
          {panel.note ? <p className="muted docs-vars code-panel-note">{panel.note}</p> : null}
          <CodeBlock code={panel.code} />
        </div>
      ))}
    </div>
  );
}
