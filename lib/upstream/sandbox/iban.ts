import type { SandboxCountry } from "./banks";
import type { SeededRandom } from "./seeded-random";

/**
 * IBANs and BBANs that pass real validators: ISO 13616 check digits (mod 97)
 * and, where the country has one, the national check digit (NO MOD11,
 * FI Luhn, NL elfproef). The account digits are the only invented part.
 */

/** ISO 13616 registry: total IBAN length per country. */
export const IBAN_LENGTHS = {
  DK: 18,
  SE: 24,
  NO: 15,
  FI: 18,
  DE: 22,
  NL: 18,
} as const satisfies Record<SandboxCountry, number>;

const digits = (random: SeededRandom, count: number) =>
  Array.from({ length: count }, () => String(random.int(0, 9))).join("");

/** Letters count as 10..35 (ISO 13616 §B.1.1). */
function toNumeric(text: string): string {
  return [...text.toUpperCase()]
    .map((char) => (/[A-Z]/.test(char) ? String(char.charCodeAt(0) - 55) : char))
    .join("");
}

/** The remainder of a long decimal string modulo 97, in chunks (it exceeds 2^53). */
function mod97(numeric: string): number {
  let remainder = 0;
  for (let i = 0; i < numeric.length; i += 7) {
    remainder = Number(`${remainder}${numeric.slice(i, i + 7)}`) % 97;
  }
  return remainder;
}

/** ISO 13616: 98 − (BBAN ‖ country ‖ "00" mod 97), two digits. */
export function ibanCheckDigits(country: string, bban: string): string {
  return String(98 - mod97(toNumeric(`${bban}${country}00`))).padStart(2, "0");
}

export function toIban(country: string, bban: string): string {
  return `${country}${ibanCheckDigits(country, bban)}${bban}`;
}

/** Length per registry, then the mod-97 rule (the rearranged number ≡ 1). */
export function isValidIban(iban: string): boolean {
  const country = iban.slice(0, 2) as SandboxCountry;
  const length = IBAN_LENGTHS[country] as number | undefined;
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban) || length !== iban.length) return false;
  return mod97(toNumeric(`${iban.slice(4)}${iban.slice(0, 4)}`)) === 1;
}

/** NO: MOD11 over the first ten digits, weights 5,4,3,2,7,6,5,4,3,2; a result of 10 is unusable. */
export function norwegianCheckDigit(tenDigits: string): number | null {
  const weights = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
  const sum = weights.reduce((total, weight, i) => total + weight * Number(tenDigits[i]), 0);
  const check = (11 - (sum % 11)) % 11;
  return check === 10 ? null : check;
}

/** FI: Luhn check digit over the first thirteen digits. */
export function luhnCheckDigit(payload: string): number {
  let sum = 0;
  [...payload].reverse().forEach((char, i) => {
    let value = Number(char) * (i % 2 === 0 ? 2 : 1);
    if (value > 9) value -= 9;
    sum += value;
  });
  return (10 - (sum % 10)) % 10;
}

/** NL: the elfproef, weights 10..1 over the ten account digits, sum divisible by 11. */
export function passesElfproef(tenDigits: string): boolean {
  const sum = [...tenDigits].reduce((total, char, i) => total + (10 - i) * Number(char), 0);
  return sum % 11 === 0;
}

/** A national BBAN for `bankCode`, with the country's own check digit where it has one. */
export function randomBban(
  country: SandboxCountry,
  bankCode: string,
  random: SeededRandom,
): string {
  switch (country) {
    case "DK":
      return `${bankCode}${digits(random, 10)}`;
    case "SE":
      return `${bankCode}${digits(random, 17)}`;
    case "DE":
      return `${bankCode}${digits(random, 10)}`;
    case "NO":
      for (;;) {
        const body = `${bankCode}${digits(random, 6)}`;
        const check = norwegianCheckDigit(body);
        if (check !== null) return `${body}${check}`;
      }
    case "FI": {
      const body = `${bankCode}${digits(random, 7)}`;
      return `${body}${luhnCheckDigit(body)}`;
    }
    case "NL":
      for (;;) {
        const account = `${random.int(1, 9)}${digits(random, 9)}`;
        if (passesElfproef(account)) return `${bankCode}${account}`;
      }
  }
}
