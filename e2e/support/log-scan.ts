import type { SeenSecret } from "./secrets-seen";

/**
 * Finds secrets, keys, codes and bank data in captured log text
 * (docs/security.md). A finding names what leaked and where, never the whole value.
 */

export interface Leak {
  what: string;
  line: number;
  shown: string;
}

/** The first four characters and the length: enough to find it, too little to use it. */
export const maskValue = (value: string) => `${value.slice(0, 4)}… (${value.length} chars)`;

const PATTERNS: { what: string; pattern: RegExp }[] = [
  { what: "an API key (ebk_…)", pattern: /ebk_[A-Za-z0-9_-]{20,}/g },
  { what: "a client secret in clear (obs_…)", pattern: /obs_[A-Za-z0-9_-]{20,}/g },
  { what: "a PEM block", pattern: /-----BEGIN [A-Z ]+-----/g },
  { what: "a JWK private part", pattern: /"d"\s*:\s*"[A-Za-z0-9_-]+/g },
  { what: "a PKCS#8 private key", pattern: /MIG[HT]AgEA[A-Za-z0-9+/]{40,}/g },
  { what: "a magic link", pattern: /\/login\/link\?token=[A-Za-z0-9_-]{16,}/g },
  { what: "a code_verifier", pattern: /code_verifier=[A-Za-z0-9._~-]{43,}/g },
];

const IBAN_SHAPE = /\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b/g;

/** ISO 13616 check digits: the rearranged number is 1 modulo 97. */
export function isValidIban(candidate: string): boolean {
  const rearranged = candidate.slice(4) + candidate.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const digits = /\d/.test(char) ? char : String(char.charCodeAt(0) - 55);
    for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

const escapeRegExp = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A recorded value as a pattern that does not match inside a longer word or number. */
function boundedPattern(value: string): RegExp {
  const edge = /^[A-Za-z0-9_-]/.test(value) ? "(?<![A-Za-z0-9_-])" : "";
  const tail = /[A-Za-z0-9_-]$/.test(value) ? "(?![A-Za-z0-9_-])" : "";
  return new RegExp(`${edge}${escapeRegExp(value)}${tail}`);
}

export function scanLog(log: string, seen: SeenSecret[]): Leak[] {
  const leaks: Leak[] = [];
  const lines = log.split("\n");
  const recorded = [...new Map(seen.map((secret) => [secret.value, secret])).values()].map(
    (secret) => ({ ...secret, pattern: boundedPattern(secret.value) }),
  );
  lines.forEach((text, index) => {
    const line = index + 1;
    for (const secret of recorded) {
      if (secret.pattern.test(text)) {
        leaks.push({ what: `a recorded ${secret.kind}`, line, shown: maskValue(secret.value) });
      }
    }
    for (const { what, pattern } of PATTERNS) {
      for (const match of text.matchAll(pattern)) {
        leaks.push({ what, line, shown: maskValue(match[0]) });
      }
    }
    for (const match of text.matchAll(IBAN_SHAPE)) {
      if (isValidIban(match[0])) leaks.push({ what: "an IBAN", line, shown: maskValue(match[0]) });
    }
  });
  return leaks;
}

export const describeLeaks = (leaks: Leak[]) =>
  leaks.map((leak) => `line ${leak.line}: ${leak.what} ${leak.shown}`).join("\n");
