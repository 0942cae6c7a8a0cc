import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fieldViolations, addViolation } from "./field-violations";

const body = z.strictObject(
  {
    name: z.string({ error: "name must be a string" }).transform((value, ctx) => {
      if (value.length <= 3) return value;
      addViolation(ctx, "too_long", "name must be at most 3 characters");
      return z.NEVER;
    }),
    uris: z.array(z.string()).superRefine((list, ctx) => {
      list.forEach((uri, index) => {
        if (uri.includes("#")) addViolation(ctx, "fragment", "uri must not contain #", [index]);
      });
    }),
  },
  {
    error: (issue) =>
      issue.code === "invalid_type" ? "the body must be a JSON object" : undefined,
  },
);

const violations = (input: unknown, missingIsRequired: boolean) => {
  const parsed = body.safeParse(input, { reportInput: true });
  if (parsed.success) return [];
  return fieldViolations(parsed.error.issues, {
    noun: "test",
    fields: ["name", "uris"],
    missingIsRequired,
  });
};

describe("field violations from zod issues", () => {
  it("answers a body that is not an object on `body`", () => {
    expect(violations([1], true)).toEqual([
      { field: "body", code: "invalid_body", message: "the body must be a JSON object" },
    ]);
  });

  it("puts unknown keys first, then missing ones, then broken rules, with the rule's code", () => {
    expect(violations({ uris: ["a#b"], extra: 1 }, true)).toEqual([
      {
        field: "extra",
        code: "unknown_field",
        message: "extra is not a test field (name, uris)",
      },
      { field: "name", code: "required", message: "name is required" },
      { field: "uris[0]", code: "fragment", message: "uri must not contain #" },
    ]);
  });

  it("answers a missing key as a wrong type where the body has no required code", () => {
    expect(violations({ uris: [] }, false)).toEqual([
      { field: "name", code: "invalid_type", message: "name must be a string" },
    ]);
    expect(violations({ name: "long", uris: [] }, false)).toEqual([
      { field: "name", code: "too_long", message: "name must be at most 3 characters" },
    ]);
  });
});
