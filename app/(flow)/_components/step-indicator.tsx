import { getTranslations } from "next-intl/server";
import type { FlowProgress } from "@/lib/flow/steps";

/**
 * "Step 2 of 4" with a segment per step: the count is the text screen
 * readers and narrow phones get, the current item carries aria-current.
 */
export async function StepIndicator({ progress }: { progress: FlowProgress }) {
  const t = await getTranslations("Progress");
  const total = progress.steps.length;
  const current = progress.steps[progress.current];
  return (
    <nav className="steps" aria-label={t("label")}>
      <p className="steps-count">
        {t("count", { current: progress.current + 1, total })}
        {current ? <span className="visually-hidden">: {t(current)}</span> : null}
        {current ? (
          <span className="steps-current" aria-hidden="true">
            {" "}
            · {t(current)}
          </span>
        ) : null}
      </p>
      <ol>
        {progress.steps.map((step, index) => (
          <li
            key={step}
            className={index < progress.current ? "step-done" : undefined}
            aria-current={index === progress.current ? "step" : undefined}
          >
            <span className="step-label">
              {index < progress.current ? (
                <span className="visually-hidden">{t("done")} </span>
              ) : null}
              {t(step)}
            </span>
          </li>
        ))}
      </ol>
    </nav>
  );
}
