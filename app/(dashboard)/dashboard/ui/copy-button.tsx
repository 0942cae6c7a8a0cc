"use client";

import { useTranslations } from "next-intl";
import { useState } from "react";

/**
 * Copies a value to the clipboard and says so. Where the browser refuses
 * the clipboard, the value's text is selected instead, ready for Ctrl+C.
 */
export function CopyButton({
  value,
  target,
  label,
}: {
  value: string;
  target: string;
  label: string;
}) {
  const t = useTranslations("Dashboard.common");
  const [state, setState] = useState<"idle" | "copied" | "selected">("idle");

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
    } catch {
      const element = document.getElementById(target);
      if (element) window.getSelection()?.selectAllChildren(element);
      setState("selected");
    }
  }

  return (
    <>
      <button
        type="button"
        className="button-secondary button-small"
        aria-label={
          state === "copied" ? t("copiedNamed", { what: label }) : t("copyNamed", { what: label })
        }
        onClick={() => void copy()}
      >
        {state === "copied" ? t("copied") : t("copy")}
      </button>
      <span role="status" className="visually-hidden">
        {state === "copied" ? t("copiedNamed", { what: label }) : ""}
        {state === "selected" ? t("selected") : ""}
      </span>
      {state === "selected" ? <span className="small muted">{t("selected")}</span> : null}
    </>
  );
}
