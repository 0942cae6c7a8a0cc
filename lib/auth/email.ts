import { z } from "zod";

/**
 * Users (docs/architecture.md#domain-model): emails are stored normalized (trimmed, NFKC, lower-case),
 * so one person is one user however the address was typed.
 */
export function normalizeEmail(raw: string): string {
  return raw.trim().normalize("NFKC").toLowerCase();
}

/** A typed email address, normalized and then checked for the shape of an address. */
export const emailSchema = z
  .string()
  .transform(normalizeEmail)
  .pipe(
    z.email({ message: "is not a valid email address" }).max(254, "is longer than 254 characters"),
  );
