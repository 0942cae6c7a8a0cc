import { syncDb } from "../db/client";
import { log } from "../log";
import {
  fromStoredPsuHeaders,
  missingPsuHeaders,
  psuHeadersToSend,
  toStoredPsuHeaders,
} from "../upstream/psu-headers";
import type { Upstream } from "../upstream/types";

/**
 * The PSU headers a bank requires (Enable Banking `required_psu_headers`,
 * recorded on the connection when the consent is stored) against what a sync
 * forwards (/docs/sync):
 *
 * - a sync with the holder present (PSU headers forwarded) that lacks one the
 *   bank requires is refused before the bank is asked: `psu_headers_missing`,
 *   naming them;
 * - the bank's own `PSU_HEADER_NOT_PROVIDED` is `psu_headers_missing` with the
 *   same list when headers were forwarded, and `psu_present_required` (with
 *   what to send) when none were: the bank shares data only with the holder
 *   present.
 */

export interface PsuConnection {
  id: string;
  aspspName: string;
  aspspCountry: string;
  requiredPsuHeaders: string | null;
}

/** Partner header names, e.g. `X-Psu-Geo-Location`; null when nothing is missing. */
export function missingBeforeRead(
  connection: PsuConnection,
  forwarded: Record<string, string> | undefined,
): string[] | null {
  const required = fromStoredPsuHeaders(connection.requiredPsuHeaders);
  if (!forwarded || required === null) return null;
  const missing = missingPsuHeaders(required, forwarded);
  return missing.length > 0 ? missing : null;
}

/** The bank's list from the upstream's bank list; null when it cannot be had in time. */
async function requiredAtBank(
  upstream: Upstream,
  connection: PsuConnection,
  signal: AbortSignal,
): Promise<string[] | null> {
  if (signal.aborted) return null;
  const aborted = new Promise<null>((resolve) =>
    signal.addEventListener("abort", () => resolve(null), { once: true }),
  );
  try {
    const banks = await Promise.race([
      upstream.listBanks({ country: connection.aspspCountry }),
      aborted,
    ]);
    const bank = banks?.find((candidate) => candidate.name === connection.aspspName);
    return bank ? bank.requiredPsuHeaders : null;
  } catch (error) {
    log.warn("sync.required_psu_headers_unknown", { error });
    return null;
  }
}

/**
 * The answer to the bank's PSU_HEADER_NOT_PROVIDED. When the recorded list is
 * not known (a consent from before it was recorded) or does not explain the
 * refusal (the bank changed its list), it is read again from the bank list
 * and recorded.
 */
export async function answerPsuHeaderRefusal(
  upstream: Upstream,
  connection: PsuConnection,
  forwarded: Record<string, string> | undefined,
  signal: AbortSignal,
): Promise<{
  reason: "psu_headers_missing" | "psu_present_required";
  missingPsuHeaders: string[];
}> {
  let required = fromStoredPsuHeaders(connection.requiredPsuHeaders);
  const explains = (list: string[]) =>
    forwarded ? missingPsuHeaders(list, forwarded).length > 0 : list.length > 0;
  if (required === null || !explains(required)) {
    const fresh = await requiredAtBank(upstream, connection, signal);
    if (fresh !== null) {
      required = fresh;
      await syncDb().connection.update({
        where: { id: connection.id },
        data: { requiredPsuHeaders: toStoredPsuHeaders(fresh) },
      });
    }
  }
  const list = required ?? [];
  return forwarded
    ? { reason: "psu_headers_missing", missingPsuHeaders: missingPsuHeaders(list, forwarded) }
    : { reason: "psu_present_required", missingPsuHeaders: psuHeadersToSend(list) };
}
