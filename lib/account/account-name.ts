/**
 * How "My access" names an account once the browser opened its envelopes
 * (docs/account.md): the name the person gave it at the bank, else the
 * bank's name for it, else its product, followed by the last four
 * characters of its number, so that two accounts of one kind stay apart.
 * Runs in the browser and in tests alike; nothing here reaches the server.
 */

export interface OpenedAccount {
  /** The opened `displayNameEnc`. */
  displayName?: unknown;
}

export interface OpenedDetails {
  /** The opened `enc`. */
  accountName?: unknown;
  product?: unknown;
  iban?: unknown;
  bban?: unknown;
}

const text = (value: unknown): string | null =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null;

/** The account's name, or null when neither envelope says anything (then the page numbers it). */
export function accountLabel(
  opened: OpenedAccount | null,
  details: OpenedDetails | null,
): string | null {
  const name =
    text(opened?.displayName) ?? text(details?.accountName) ?? text(details?.product) ?? null;
  const number = (text(details?.iban) ?? text(details?.bban))?.replace(/\s+/g, "") ?? null;
  const ending = number && number.length > 4 ? `•••• ${number.slice(-4)}` : null;
  if (name && ending) return `${name} · ${ending}`;
  return name ?? ending;
}
