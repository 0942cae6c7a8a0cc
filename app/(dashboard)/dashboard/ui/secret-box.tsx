"use client";

import { useTranslations } from "next-intl";
import { useEffect, useRef, type ReactNode } from "react";
import { CopyButton } from "./copy-button";

export interface SecretItem {
  id: string;
  label: string;
  value: string;
  testId?: string;
}

/**
 * A secret shown once, where the action that made it was: each value with a
 * copy button, the warning that it is never shown again, and "Done". It takes
 * the focus when it appears, so the person sees and hears it at once.
 */
export function SecretBox(props: {
  title: string;
  items: SecretItem[];
  children?: ReactNode;
  onDone: () => void;
}) {
  const t = useTranslations("Dashboard.common");
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
    ref.current?.scrollIntoView({ block: "nearest" });
  }, []);
  return (
    <div
      ref={ref}
      className="alert alert-warn secret-box"
      role="region"
      aria-label={props.title}
      tabIndex={-1}
    >
      <strong className="alert-title">{props.title}</strong>
      <p>{t("shownOnce")}</p>
      <dl className="secret-list">
        {props.items.map((item) => (
          <div key={item.id}>
            <dt>{item.label}</dt>
            <dd>
              <code id={item.id} data-testid={item.testId} className="secret-value">
                {item.value}
              </code>
              <CopyButton value={item.value} target={item.id} label={item.label} />
            </dd>
          </div>
        ))}
      </dl>
      {props.children}
      <p className="actions">
        <button type="button" className="button-secondary" onClick={props.onDone}>
          {t("stored")}
        </button>
      </p>
    </div>
  );
}
