import { PartnerError } from "./errors";

/** Display names of partners and clients: one line, 1–100 characters after trimming. */
export const MAX_NAME_LENGTH = 100;

/** Returns the trimmed name, or throws PartnerError("invalid_name"). */
export function parseName(raw: string, what: "partner" | "client"): string {
  const name = raw.trim();
  if (name === "") throw new PartnerError("invalid_name", `the ${what} name must not be empty`);
  if (name.length > MAX_NAME_LENGTH) {
    throw new PartnerError(
      "invalid_name",
      `the ${what} name must be at most ${MAX_NAME_LENGTH} characters`,
    );
  }
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    throw new PartnerError(
      "invalid_name",
      `the ${what} name must be one line without control characters`,
    );
  }
  return name;
}
