import { isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS } from "../db/faults";
import { authenticateApiKeyRequest, refuseOutsideScope } from "../oauth/bearer";
import type { ApiKeyPrincipal } from "../keys/api-keys";
import { log } from "../log";
import { apiJson } from "./data";

/** Next passes `params` only to routes with dynamic segments. */
export type RouteContext = { params?: Promise<Record<string, string | string[]> | undefined> };
type Operation = (
  principal: ApiKeyPrincipal,
  request: Request,
  params: Record<string, string>,
) => Promise<Response>;

/**
 * A data operation behind API-key authentication (/docs/data): 401 for a
 * missing or dead key, the operation otherwise, and a 503 (never a stack
 * trace) when something underneath fails, the key lookup included: while the
 * database is unreachable every call answers 503 transient with Retry-After.
 */
export function dataOperation(operation: Operation) {
  return async (request: Request, context?: RouteContext): Promise<Response> => {
    try {
      const principal = await authenticateApiKeyRequest(request);
      if (principal instanceof Response) return principal;
      const raw = (await context?.params) ?? {};
      const params = Object.fromEntries(
        Object.entries(raw).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join("/") : value,
        ]),
      );
      return await operation(principal, request, params);
    } catch (error) {
      const path = new URL(request.url).pathname;
      if (isDatabaseUnavailable(error)) log.warn("api.database_unavailable", { error, path });
      else log.error("api.operation_failed", { error, path });
      return apiJson({ status: 503, reason: "transient" }, 503, {
        "Retry-After": String(OUTAGE_RETRY_AFTER_SECONDS),
      });
    }
  };
}

/** Methods outside the five operations answer 403 like every other path (/docs/data). */
export const outsideScope = (request: Request) => refuseOutsideScope(request);
