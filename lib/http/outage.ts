import { isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS } from "../db/faults";
import { log } from "../log";
import { errorJson, privateJson } from "./respond";

/**
 * Runs a handler and answers `outage()` instead of a 500 when it failed
 * because the database cannot be reached; any other failure is rethrown.
 */
export function answeringOutages<A extends unknown[]>(
  handler: (...args: A) => Promise<Response>,
  outage: (...args: A) => Response,
): (...args: A) => Promise<Response> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      log.warn("database_unavailable", { error });
      return outage(...args);
    }
  };
}

/** The dashboard and partner endpoints' 503: their `{error, error_description}` shape. */
export function temporarilyUnavailable(): Response {
  const response = errorJson(503, "temporarily_unavailable", "try again in a few seconds");
  response.headers.set("Retry-After", String(OUTAGE_RETRY_AFTER_SECONDS));
  return response;
}

/**
 * The browser screens' answer: a script posting JSON (key setup, the user-key
 * consent) gets a 503 it can show; a form post or a link lands on the error
 * screen, which says the service is briefly unavailable in the flow's language.
 */
export function unavailableToBrowser(request: Request): Response {
  if ((request.headers.get("content-type") ?? "").startsWith("application/json")) {
    const response = privateJson({ error: "unavailable" }, 503);
    response.headers.set("Retry-After", String(OUTAGE_RETRY_AFTER_SECONDS));
    return response;
  }
  return new Response(null, {
    status: 303,
    headers: { Location: "/error?reason=unavailable", "Cache-Control": "no-store" },
  });
}

/** A browser route handler that answers an outage with `unavailableToBrowser`. */
export const browserRoute = (handler: (request: Request) => Promise<Response>) =>
  answeringOutages(handler, unavailableToBrowser);
