import type { z } from "zod";
import type { FieldViolation, ViolationCode } from "./violations";

/**
 * The one mapping from a body schema's zod issues to the `{field, code,
 * message}` violations the dashboard endpoints answer
 * (lib/partners/violations.ts). The schemas write each message in full,
 * field name included; this only names the field and picks the code:
 *
 * - a key the body does not have: `unknown_field`, one per key;
 * - the body itself not an object: `invalid_body` on `body`;
 * - a required key missing (when the body has required keys): `required`;
 * - a value of the wrong type: `invalid_type`;
 * - a broken rule: the code the rule put in the issue's params (see `refuse`).
 *
 * Unknown keys come first, then missing ones, then the rest in the schema's
 * field order.
 */

export interface BodyDescription {
  /** What the body is called in the unknown-field sentence ("branding": "… is not a branding field"). */
  noun: string;
  /** The body's fields, listed in that sentence. */
  fields: readonly string[];
  /** A missing key is `required` (true) or a value of the wrong type (false). */
  missingIsRequired: boolean;
}

/** Adds a broken rule's issue in a transform or refinement: its code and whole message. */
export function refuse(
  ctx: Pick<z.RefinementCtx, "addIssue">,
  code: ViolationCode,
  message: string,
  path?: PropertyKey[],
): void {
  ctx.addIssue({ code: "custom", message, params: { code }, ...(path ? { path } : {}) });
}

/** `redirectUris[2]` for the path ["redirectUris", 2]. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) =>
      typeof part === "number" ? `[${part}]` : `${index > 0 ? "." : ""}${String(part)}`,
    )
    .join("");
}

const RANK: Partial<Record<ViolationCode, number>> = { unknown_field: 0, required: 1 };

/** Parse with `{ reportInput: true }` so a missing key can be told from a wrong value. */
export function fieldViolations(
  issues: readonly z.core.$ZodIssue[],
  body: BodyDescription,
): FieldViolation[] {
  const violations: FieldViolation[] = [];
  for (const issue of issues) {
    const field = fieldOf(issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        violations.push({
          field: fieldOf([...issue.path, key]),
          code: "unknown_field",
          message: `${key} is not a ${body.noun} field (${body.fields.join(", ")})`,
        });
      }
    } else if (issue.path.length === 0) {
      violations.push({ field: "body", code: "invalid_body", message: issue.message });
    } else if (issue.code === "custom") {
      const code = (issue.params as { code?: ViolationCode } | undefined)?.code ?? "invalid_type";
      violations.push({ field, code, message: issue.message });
    } else if (
      issue.code === "invalid_type" &&
      issue.input === undefined &&
      body.missingIsRequired
    ) {
      violations.push({ field, code: "required", message: `${field} is required` });
    } else {
      violations.push({ field, code: "invalid_type", message: issue.message });
    }
  }
  const rank = (violation: FieldViolation) => RANK[violation.code] ?? 2;
  return violations
    .map((violation, index) => ({ violation, index }))
    .sort((a, b) => rank(a.violation) - rank(b.violation) || a.index - b.index)
    .map(({ violation }) => violation);
}
