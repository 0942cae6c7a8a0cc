import { LRUCache } from "lru-cache";
import { log } from "../../log";
import type { Aspsp } from "../types";

/**
 * Enable Banking's bank lists (`GET /aspsps`), kept in memory
 * (docs/architecture.md#the-bank-list). Each list the service asks for is
 * kept on its own: the full one (the bank picker's) and one per country (a
 * consent's start looks its bank up in its country's list). Each is the
 * bank's own answer to that query, so nothing reimplements Enable Banking's
 * filter, and a consent's start needs only its country's list, however
 * large the full one grows.
 *
 * A list younger than its lifetime is answered without a request. An older
 * one is still answered at once, while one request in the background fetches
 * it again; when that request fails, the last good list stays and is
 * answered until a later call's refresh succeeds. Only a list never fetched
 * waits for Enable Banking, and fails as the request does; callers that ask
 * for it together share that one request.
 */

/** How long a fetched list is answered before it is fetched again. */
export const BANK_LIST_LIFETIME_MS = 6 * 60 * 60 * 1000;
/** Lists kept: the full one and one per country (about thirty countries are served). */
const LISTS_KEPT = 64;

export interface BankLists {
  /** The list of `country` (upper case), or every bank for "". */
  get(country: string): Promise<Aspsp[]>;
}

export function createBankLists(
  fetchList: (country: string, signal: AbortSignal) => Promise<Aspsp[]>,
  options: { now: () => Date; lifetimeMs?: number },
): BankLists {
  const lists = new LRUCache<string, Aspsp[]>({
    max: LISTS_KEPT,
    ttl: options.lifetimeMs ?? BANK_LIST_LIFETIME_MS,
    // The connector's clock decides what is stale, checked on every call.
    perf: { now: () => options.now().getTime() },
    ttlResolution: 0,
    // A stale list is answered while its refresh runs, and kept when the refresh fails.
    allowStale: true,
    noDeleteOnFetchRejection: true,
    fetchMethod: async (country, stale, { signal }) => {
      try {
        return await fetchList(country, signal);
      } catch (error) {
        // With nothing kept, the caller waiting for the list gets the error itself.
        if (stale !== undefined) {
          log.warn("upstream.bank_list_refresh_failed", { country: country || "all", error });
        }
        throw error;
      }
    },
  });
  return {
    async get(country) {
      // A copy: a caller that sorts or filters its list leaves the kept one as it was.
      return [...(await lists.forceFetch(country))];
    },
  };
}
