import { EnvError, getEnv } from "../env";
import { enableBankingUpstream } from "./enable-banking";
import { sandboxUpstream } from "./sandbox";
import { tracedUpstream } from "../tracing";
import { measuredUpstream } from "./metrics";
import type { Upstream, UpstreamName } from "./types";

/**
 * The configured aggregator (docs/architecture.md#upstream-aggregators, setting `UPSTREAM`). A connection
 * remembers which one holds its consent, so later calls use `upstreamNamed`.
 */

const instances = new Map<UpstreamName, Upstream>();

function enableBankingFromEnv(): Upstream {
  const { apiUrl, applicationId, privateKey } = getEnv().enableBanking;
  // The env check covers UPSTREAM=enablebanking; a connection made with Enable
  // Banking can still be read after UPSTREAM changed, and then needs them too.
  const missing = [
    ...(applicationId ? [] : ["ENABLE_BANKING_APPLICATION_ID"]),
    ...(privateKey ? [] : ["ENABLE_BANKING_PRIVATE_KEY"]),
  ];
  if (!applicationId || !privateKey) {
    throw new EnvError(missing.map((name) => `${name} is required for the enablebanking upstream`));
  }
  return enableBankingUpstream({ apiUrl, applicationId, privateKey });
}

function createUpstream(name: UpstreamName): Upstream {
  switch (name) {
    case "sandbox":
      return tracedUpstream(name, measuredUpstream(name, sandboxUpstream()));
    case "enablebanking":
      return tracedUpstream(name, measuredUpstream(name, enableBankingFromEnv()));
  }
}

export function upstreamNamed(name: UpstreamName): Upstream {
  let instance = instances.get(name);
  if (!instance) {
    instance = createUpstream(name);
    instances.set(name, instance);
  }
  return instance;
}

export function upstream(): Upstream {
  return upstreamNamed(getEnv().upstream);
}
