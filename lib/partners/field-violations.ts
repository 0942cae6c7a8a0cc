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
 * - a broken rule: the code the rule put in the issue's params (see `addViolation`).
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
export function addViolation(
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

/** Parse with `{ reportInput: true }` so a missing key can be told from a wrong value. */
export function fieldViolations(
  issues: readonly z.core.$ZodIssue[],
  body: BodyDescription,
): FieldViolation[] {
  // Unknown keys rank 0, missing keys 1, the rest 2.
  const ranked: { violation: FieldViolation; rank: number }[] = [];
  const push = (rank: number, violation: FieldViolation) => ranked.push({ violation, rank });
  for (const issue of issues) {
    const field = fieldOf(issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        push(0, {
          field: fieldOf([...issue.path, key]),
          code: "unknown_field",
          message: `${key} is not a ${body.noun} field (${body.fields.join(", ")})`,
        });
      }
    } else if (issue.path.length === 0) {
      push(2, { field: "body", code: "invalid_body", message: issue.message });
    } else if (issue.code === "custom") {
      const code = (issue.params as { code?: ViolationCode } | undefined)?.code ?? "invalid_type";
      push(2, { field, code, message: issue.message });
    } else if (
      issue.code === "invalid_type" &&
      issue.input === undefined &&
      body.missingIsRequired
    ) {
      push(1, { field, code: "required", message: `${field} is required` });
    } else {
      push(2, { field, code: "invalid_type", message: issue.message });
    }
  }
  return ranked
    .map((entry, index) => ({ ...entry, index }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ violation }) => violation);
}
