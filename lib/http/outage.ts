import { isDatabaseUnavailable } from "../db/faults";
import { log } from "../log";
import { errorJson } from "./respond";

/** Seconds a client should wait before repeating a request refused by an outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

/**
 * Runs a handler and answers `outage()` instead of a 500 when it failed
 * because the database cannot be reached; any other failure is rethrown.
 */
export function answeringOutages<A extends unknown[]>(
  handler: (...args: A) => Promise<Response>,
  outage: () => Response,
): (...args: A) => Promise<Response> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      log.warn("database_unavailable", { error });
      return outage();
    }
  };
}

/** The dashboard and partner endpoints' 503: their `{error, error_description}` shape. */
export function temporarilyUnavailable(): Response {
  const response = errorJson(503, "temporarily_unavailable", "try again in a few seconds");
  response.headers.set("Retry-After", String(OUTAGE_RETRY_AFTER_SECONDS));
  return response;
}
