import { getEnv } from "../env";
import { sandboxUpstream } from "./sandbox";
import type { Upstream, UpstreamName } from "./types";

/**
 * The configured aggregator (DESIGN.md §7, setting `UPSTREAM`). A connection
 * remembers which one holds its consent, so later calls use `upstreamNamed`.
 */

const instances = new Map<UpstreamName, Upstream>();

export function upstreamNamed(name: UpstreamName): Upstream {
  let instance = instances.get(name);
  if (!instance) {
    if (name !== "sandbox") {
      throw new Error(`The ${name} connector is not part of this build; set UPSTREAM=sandbox`);
    }
    instance = sandboxUpstream();
    instances.set(name, instance);
  }
  return instance;
}

export function upstream(): Upstream {
  return upstreamNamed(getEnv().upstream);
}
