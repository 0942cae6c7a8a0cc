import { DATA_GENERATORS } from "./corpus-data";
import { FLOW_GENERATORS } from "./corpus-flow";
import { OAUTH_GENERATORS } from "./corpus-oauth";
import { PAGE_GENERATORS } from "./corpus-pages";
import { PARTNER_GENERATORS } from "./corpus-partner";
import { PASSKEY_GENERATORS } from "./corpus-passkeys";
import type { Generator } from "./generator";
import { Rng } from "./prng";
import { GENERIC_MUTATIONS, mutate, toRequest, type Template } from "./template";
import { ALL_METHODS, type FuzzContext, type FuzzRequest } from "./types";
import { CONTENT_TYPES, randomBytesOf } from "./values";

/**
 * The deterministic corpus: request `index` depends only on the seed, the
 * index and the fixtures. The first requests walk every endpoint with every
 * method; the rest pick an endpoint and either send its valid request, break
 * one thing about it, or send garbage.
 */

export const GENERATORS: Generator[] = [
  ...OAUTH_GENERATORS,
  ...DATA_GENERATORS,
  ...PARTNER_GENERATORS,
  ...FLOW_GENERATORS,
  ...PASSKEY_GENERATORS,
  ...PAGE_GENERATORS,
];

/** Requests that walk every endpoint with every method. */
export const METHOD_SWEEP = GENERATORS.length * ALL_METHODS.length;

function garbage(rng: Rng, template: Template): Template {
  return {
    ...template,
    method: rng.pick([...ALL_METHODS, "PROPFIND", "TRACE", "FOO"]),
    rawQuery: rng.chance(0.5)
      ? randomBytesOf(rng, rng.int(1, 200))
          .toString("latin1")
          .replace(/[\s#\u0000-\u001f\u007f]/g, "%")
      : undefined,
    headers: {
      cookie: randomBytesOf(rng, rng.int(1, 300))
        .toString("latin1")
        .replace(/[^\t\x20-\x7e\x80-\xff]/g, ""),
    },
    body: {
      type: "bytes",
      contentType: rng.pick(CONTENT_TYPES),
      bytes: randomBytesOf(rng, rng.int(0, 8192)),
    },
  };
}

export function buildRequest(ctx: FuzzContext, seed: number, index: number): FuzzRequest {
  const rng = Rng.forCase(seed, index);
  if (index < METHOD_SWEEP) {
    const generator = GENERATORS[Math.floor(index / ALL_METHODS.length)] as Generator;
    const method = ALL_METHODS[index % ALL_METHODS.length] as string;
    const template = generator.build(rng, ctx);
    const kind = method === template.method ? "valid" : "wrong-method";
    return toRequest({ ...template, method }, kind, seed, index);
  }
  const generator = rng.pick(GENERATORS);
  const template = generator.build(rng, ctx);
  const roll = rng.next();
  if (roll < 0.08) return toRequest(template, "valid", seed, index);
  if (roll < 0.14) return toRequest(garbage(rng, template), "garbage", seed, index);
  const specific = generator.mutations?.(ctx) ?? {};
  // Endpoint-specific mutations get as much weight as all generic ones together.
  const pool = Object.keys(specific).length && rng.chance(0.45) ? specific : GENERIC_MUTATIONS;
  const [kind, mutated] = mutate(rng, template, pool);
  return toRequest(mutated, kind, seed, index);
}
