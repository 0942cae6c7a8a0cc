import type { Rng } from "./prng";
import type { Mutation, Template } from "./template";
import type { Endpoint, FuzzContext } from "./types";

/** One endpoint's valid request and the mutations specific to it. */
export interface Generator {
  endpoint: Endpoint;
  build(rng: Rng, ctx: FuzzContext): Template;
  mutations?(ctx: FuzzContext): Record<string, Mutation>;
}

type Spec = Omit<Template, "endpoint" | "query" | "headers"> & {
  query?: Template["query"];
  headers: Record<string, string | undefined>;
};

const defined = (headers: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

export function define(
  endpoint: Endpoint,
  build: (rng: Rng, ctx: FuzzContext) => Spec,
  mutations?: (ctx: FuzzContext) => Record<string, Mutation>,
): Generator {
  return {
    endpoint,
    build: (rng, ctx) => {
      const spec = build(rng, ctx);
      return { ...spec, headers: defined(spec.headers), query: spec.query ?? [], endpoint };
    },
    mutations,
  };
}

/** The flow's browser headers: its cookies and this service's Origin. */
export const flowHeaders = (ctx: FuzzContext, cookie: string) => ({ cookie, origin: ctx.origin });
