import { PartnerError } from "./errors";
import type { ViolationCode } from "./violations";

/** Display names of partners and clients: one line, 1–100 characters after trimming. */
export const MAX_NAME_LENGTH = 100;

/** Why a trimmed name is refused: a stable code and the English words after "the … name". */
export function nameProblem(name: string): { code: ViolationCode; problem: string } | null {
  if (name === "") return { code: "required", problem: "must not be empty" };
  if (name.length > MAX_NAME_LENGTH) {
    return { code: "too_long", problem: `must be at most ${MAX_NAME_LENGTH} characters` };
  }
  if (/[\u0000-\u001f\u007f]/.test(name)) {
    return { code: "one_line", problem: "must be one line without control characters" };
  }
  return null;
}

/** Returns the trimmed name, or throws PartnerError("invalid_name"). */
export function parseName(raw: string, what: "partner" | "client"): string {
  const name = raw.trim();
  const refused = nameProblem(name);
  if (refused) throw new PartnerError("invalid_name", `the ${what} name ${refused.problem}`);
  return name;
}
