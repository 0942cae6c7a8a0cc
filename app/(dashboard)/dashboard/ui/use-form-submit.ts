"use client";

import { useState } from "react";
import type { DashboardForm } from "@/lib/partners/field-errors";
import { NO_PROBLEMS, useProblems, type ProblemContext, type Problems } from "./errors";
import type { Answer } from "./request";

/**
 * How a dashboard form sends: one request at a time; after a success the
 * problems clear and the done status shows; after a refusal each problem
 * stands next to its input, in the person's language, and the first refused
 * input has the focus.
 */
export function useFormSubmit<Values>(options: {
  form: DashboardForm;
  send: (values: Values) => Promise<Answer>;
  /** Said in the form's status line after a success. */
  doneLabel?: string;
  onDone?: () => void;
  context?: (values: Values) => ProblemContext;
  /** The id of the element that takes the focus when a field is refused. */
  inputId: (field: string) => string;
}) {
  const problemsOf = useProblems();
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState("");
  const [problems, setProblems] = useState<Problems>(NO_PROBLEMS);

  async function submit(values: Values) {
    if (busy) return;
    setBusy(true);
    setStatus("");
    const answer = await options.send(values);
    setBusy(false);
    if (answer.ok) {
      setProblems(NO_PROBLEMS);
      setStatus(options.doneLabel ?? "");
      options.onDone?.();
      return;
    }
    const found = problemsOf(options.form, answer, options.context?.(values));
    setProblems(found);
    const first = Object.keys(found.fields)[0];
    if (first) document.getElementById(options.inputId(first))?.focus();
  }

  return { busy, status, problems, submit };
}
