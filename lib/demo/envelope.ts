import { openEnvelope } from "../docs/examples/open-envelope";

/**
 * The demo partner opens envelopes with the code the partner documentation
 * publishes (/docs/envelopes), as a partner that copied it would.
 */
export { openEnvelope };

/** Null handling (/docs/envelopes): a missing envelope opens to null. */
export function openOptional<T>(privateKey: string, envelope: unknown): T | null {
  return typeof envelope === "string" && envelope !== ""
    ? openEnvelope<T>(privateKey, envelope)
    : null;
}
