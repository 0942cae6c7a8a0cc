import { PartnerError } from "./errors";
import type { ViolationCode } from "./violations";

/** Display names of partners and clients: one line, 1–100 characters after normalizing. */
export const MAX_NAME_LENGTH = 100;

/** A broken rule: a stable code and the English words after "the … name". */
export type NameProblem = { code: ViolationCode; problem: string };

/** Control characters and line breaks (C0, DEL, C1, line and paragraph separators). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * Characters a reader cannot see, or that change how the text around them is
 * shown: format characters (zero-width spaces and joiners, the bidi
 * embeddings, overrides and isolates, the soft hyphen, the byte order mark,
 * tags), every default-ignorable code point (variation selectors, fillers),
 * private-use, unassigned and lone surrogate code points, and the blank
 * Braille pattern. A name holding one could pass for another name, so it is
 * refused rather than cleaned.
 */
const INVISIBLE = /[\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Default_Ignorable_Code_Point}\u2800]/u;

const INVISIBLE_PROBLEM =
  "must not contain invisible characters or text-direction controls (zero-width spaces or joiners, bidi overrides or isolates, soft hyphens)";

/**
 * A typed name as it is stored, shown and compared: NFKC (compatibility
 * forms such as full-width letters, ligatures and the no-break space become
 * their plain form), each run of white space one space, trimmed. Or why it
 * is refused: control characters and line breaks, then invisible characters.
 */
export function normalizeNameText(
  raw: string,
): { ok: true; text: string } | ({ ok: false } & NameProblem) {
  const compatible = raw.normalize("NFKC");
  if (CONTROL.test(compatible)) {
    return { ok: false, code: "one_line", problem: "must be one line without control characters" };
  }
  if (INVISIBLE.test(compatible)) {
    return { ok: false, code: "invisible", problem: INVISIBLE_PROBLEM };
  }
  return { ok: true, text: compatible.replace(/\s+/gu, " ").trim() };
}

/** The normalized name, or why it is refused. */
export function checkName(raw: string): { ok: true; name: string } | ({ ok: false } & NameProblem) {
  const normalized = normalizeNameText(raw);
  if (!normalized.ok) return normalized;
  const name = normalized.text;
  if (name === "") return { ok: false, code: "required", problem: "must not be empty" };
  if (name.length > MAX_NAME_LENGTH) {
    return {
      ok: false,
      code: "too_long",
      problem: `must be at most ${MAX_NAME_LENGTH} characters`,
    };
  }
  return { ok: true, name };
}

/** Returns the normalized name, or throws PartnerError("invalid_name"). */
export function parseName(raw: string, what: "partner" | "client"): string {
  const checked = checkName(raw);
  if (!checked.ok) throw new PartnerError("invalid_name", `the ${what} name ${checked.problem}`);
  return checked.name;
}
