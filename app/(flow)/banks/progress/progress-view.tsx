"use client";

import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";

/** How often the script asks how far the bank connection is. */
const POLL_MS = 400;

interface Progress {
  state: string;
  accountsDone: number;
  accountsTotal: number;
}

type StepState = "done" | "active" | "todo";

/**
 * The progress of storing the bank's data. Polls the status; once the
 * accounts are stored, or it failed, the page is loaded again and the server
 * sends the browser on (or shows the failure).
 */
export function ProgressView(props: { bank: string; initial: Progress }) {
  const t = useTranslations("BankProgress");
  const [progress, setProgress] = useState(props.initial);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const response = await fetch("/banks/progress/status", {
          headers: { Accept: "application/json" },
          cache: "no-store",
        });
        if (response.ok) {
          const status = (await response.json()) as Progress & { ready: boolean };
          if (status.ready || status.state === "failed") {
            window.location.replace("/banks/progress");
            return;
          }
          if (!stopped) setProgress(status);
        } else if (response.status === 403 || response.status === 404) {
          window.location.replace("/banks/progress");
          return;
        }
      } catch {
        // A dropped poll is tried again.
      }
      if (!stopped) timer = setTimeout(() => void poll(), POLL_MS);
    };
    timer = setTimeout(() => void poll(), POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, []);

  const { state, accountsDone, accountsTotal } = progress;
  const fetching: StepState = state === "history" ? "done" : "active";
  const storing: StepState = state === "history" ? "active" : "todo";
  const fetchingText =
    accountsTotal > 0
      ? t("accountsCount", {
          done: Math.min(accountsDone + 1, accountsTotal),
          total: accountsTotal,
        })
      : t("accounts");

  return (
    <div className="progress">
      <div className="progress-spinner" aria-hidden="true" />
      <h1>{t("title", { bank: props.bank })}</h1>
      <p className="visually-hidden" role="status" aria-live="polite">
        {state === "waiting" ? t("waiting") : state === "history" ? t("history") : fetchingText}
      </p>
      <progress
        className="progress-meter"
        max={Math.max(1, accountsTotal) + 1}
        value={state === "history" ? Math.max(1, accountsTotal) : accountsDone}
        aria-label={t("title", { bank: props.bank })}
      />
      <ol className="progress-steps">
        <li data-state="done">{t("approved")}</li>
        <li data-state={fetching}>{fetchingText}</li>
        <li data-state={storing}>{t("history")}</li>
      </ol>
      {state === "waiting" ? (
        <p className="notice progress-waiting" aria-hidden="true">
          {t("waiting")}
        </p>
      ) : null}
      <p className="muted small">{t("stay")}</p>
    </div>
  );
}
