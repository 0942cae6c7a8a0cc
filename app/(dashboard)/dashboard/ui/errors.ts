"use client";

import { useTranslations } from "next-intl";
import {
  fieldMessage,
  requestErrorKey,
  type DashboardForm,
  type FieldMessage,
} from "@/lib/partners/field-errors";
import type { FieldViolation } from "@/lib/partners/violations";
import type { Answer } from "./request";

export interface Problems {
  /** Messages next to each input, by the API field it sends. */
  fields: Record<string, string[]>;
  /** Messages for the form as a whole. */
  general: string[];
}

export const NO_PROBLEMS: Problems = { fields: {}, general: [] };

/** What a field's sentence may name: the redirect URIs that were sent, the registered domain. */
export interface ProblemContext {
  redirectUris?: readonly string[];
  domain?: string | null;
}

/**
 * Turns a refused answer into sentences in the person's language: each field
 * violation next to its input, named by its label; any other refusal as one
 * sentence for the whole form (lib/partners/field-errors.ts).
 */
export function useProblems() {
  // Message keys come from the mapping table, so they are looked up untyped.
  const t = useTranslations("Dashboard") as unknown as (
    key: string,
    values?: Record<string, string | number>,
  ) => string;
  const sentence = (message: FieldMessage) =>
    t(`errors.${message.key}`, {
      ...message.values,
      field: message.label ? t(message.label) : "",
    });
  return (form: DashboardForm, answer: Answer, context: ProblemContext = {}): Problems => {
    const violations = answer.body.violations;
    if (!Array.isArray(violations) || violations.length === 0) {
      return {
        fields: {},
        general: [t(`errors.request.${requestErrorKey(answer.status, answer.body.error)}`)],
      };
    }
    const problems: Problems = { fields: {}, general: [] };
    for (const violation of violations) {
      // An unknown code falls back to the generic sentence for the field.
      const message = fieldMessage(
        form,
        violation as Pick<FieldViolation, "field" | "code">,
        context,
      );
      const text = message.input ? sentence(message) : t("errors.invalidForm");
      if (message.input) (problems.fields[message.input] ??= []).push(text);
      else if (!problems.general.includes(text)) problems.general.push(text);
    }
    return problems;
  };
}
