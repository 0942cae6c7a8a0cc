"use client";

import { useLocale, useTranslations } from "next-intl";
import { useEffect, useRef, useState } from "react";
import { useScripted } from "./scripted";

/**
 * Copies a code block's text. Hidden until the script runs (without it the
 * button could do nothing); the result is announced through a polite live
 * region that exists from the start, so screen readers hear "Copied".
 * The docs are written in English, the button speaks the visitor's language.
 */
export function CopyButton({ text }: { text: string }) {
  const t = useTranslations("Docs");
  const locale = useLocale();
  const ready = useScripted();
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    clearTimeout(timer.current);
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
    timer.current = setTimeout(() => setState("idle"), 2500);
  }

  return (
    <span lang={locale} className="copy">
      <button type="button" className="copy-button" hidden={!ready} onClick={copy}>
        {state === "copied" ? t("copied") : t("copy")}
      </button>
      <span role="status" className="visually-hidden">
        {state === "copied" ? t("copied") : state === "failed" ? t("copyFailed") : ""}
      </span>
    </span>
  );
}
