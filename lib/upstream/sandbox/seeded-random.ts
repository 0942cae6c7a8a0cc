import { createHash } from "node:crypto";

/**
 * A deterministic PRNG for the sandbox's invented bank data: the same seed
 * always gives the same sequence, on every machine, so the same account and
 * day always give the same transactions (docs/architecture.md#upstream-aggregators). Not for secrets.
 *
 * xoshiro128** (Blackman & Vigna), seeded with the first 128 bits of
 * SHA-256(seed parts joined by "|").
 */
export interface SeededRandom {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both inclusive. */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

const rotl = (x: number, k: number) => ((x << k) | (x >>> (32 - k))) >>> 0;

export function seededRandom(...seedParts: (string | number)[]): SeededRandom {
  const digest = createHash("sha256").update(seedParts.join("|")).digest();
  const s = [0, 4, 8, 12].map((offset) => digest.readUInt32LE(offset));
  // An all-zero state would only ever yield zeros.
  const allZero = !s.some((word) => word !== 0);
  let [a, b, c, d] = [allZero ? 1 : (s[0] ?? 0), s[1] ?? 0, s[2] ?? 0, s[3] ?? 0];

  const nextUint32 = () => {
    const result = Math.imul(rotl(Math.imul(b, 5) >>> 0, 7), 9) >>> 0;
    const t = (b << 9) >>> 0;
    c = (c ^ a) >>> 0;
    d = (d ^ b) >>> 0;
    b = (b ^ c) >>> 0;
    a = (a ^ d) >>> 0;
    c = (c ^ t) >>> 0;
    d = rotl(d, 11);
    return result;
  };

  const next = () => nextUint32() / 2 ** 32;
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick<T>(items: readonly T[]): T {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new RangeError("pick from an empty list");
      return item;
    },
  };
}
