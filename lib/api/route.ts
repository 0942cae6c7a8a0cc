import { isDatabaseUnavailable, OUTAGE_RETRY_AFTER_SECONDS } from "../db/faults";
import type { Statement } from "../db/sql";
import {
  acceptApiKey,
  authenticateApiKeyRequest,
  insufficientScope,
  refuseApiKey,
  refuseOutsideScope,
} from "../oauth/bearer";
import { readApiKeyCredential, readWithApiKey, type ApiKeyPrincipal } from "../keys/api-keys";
import { isPersonalKey } from "../oauth/personal-keys";
import { log } from "../log";
import { apiJson } from "./data";

/** Next passes `params` only to routes with dynamic segments. */
export type RouteContext = { params?: Promise<Record<string, string | string[]> | undefined> };
type Params = Record<string, string>;
type Operation = (
  principal: ApiKeyPrincipal,
  request: Request,
  params: Params,
) => Promise<Response>;

/**
 * A data endpoint's handler with the path's parameters as strings, and a 503
 * (never a stack trace) when something underneath fails, the key lookup
 * included: while the database is unreachable every call answers 503
 * transient with Retry-After.
 */
function dataEndpoint(handle: (request: Request, params: Params) => Promise<Response>) {
  return async (request: Request, context?: RouteContext): Promise<Response> => {
    try {
      const raw = (await context?.params) ?? {};
      const params = Object.fromEntries(
        Object.entries(raw).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join("/") : value,
        ]),
      );
      return await handle(request, params);
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

/** A data operation behind API-key authentication (/docs/data): 401 for a missing or dead key. */
export function dataOperation(operation: Operation) {
  return dataEndpoint(async (request, params) => {
    const principal = await authenticateApiKeyRequest(request);
    if (principal instanceof Response) return principal;
    return operation(principal, request, params);
  });
}

/**
 * An operation for a person's own key only (docs/own-data.md): listing the
 * banks and starting a bank connection. A partner's key is answered 403
 * insufficient_scope there, as on every path outside the five data operations.
 */
export function personalOperation(operation: Operation) {
  return dataOperation((principal, request, params) =>
    isPersonalKey(principal)
      ? operation(principal, request, params)
      : Promise.resolve(insufficientScope()),
  );
}

/** A read of the key's tenant that carries the key check, planned from the request before the key is checked. */
export interface KeyedTenantRead<Row> {
  /**
   * The statement declared with the key check (lib/keys/queries.ts,
   * withKeyCheck), given the key's hash candidates and the time (readWithApiKey).
   */
  statement: (hashes: readonly string[], now: Date) => Statement;
  /** A column of the statement's rows that is never null. */
  present: keyof Row & string;
  answer: (rows: Row[]) => Response;
}

/** A read of the key's tenant after the key was checked, planned from the request. */
export interface TenantRead<Row> {
  /** Reads the tenant's rows (one statement of lib/api/queries.ts). */
  read: (tenantId: string) => Promise<Row[]>;
  answer: (rows: Row[]) => Response;
}

/**
 * A data read whose statement carries the key check (readWithApiKey): the
 * whole request is one round trip. `plan` reads the request; a refusal it
 * returns (a malformed parameter, an impossible id) is answered only once
 * the key was checked on its own, so a dead key is told 401 first, as by
 * every other operation.
 */
export function keyedRead<Row extends object>(
  plan: (request: Request, params: Params) => KeyedTenantRead<Row> | Response,
) {
  return dataEndpoint(async (request, params) => {
    const credential = readApiKeyCredential(request);
    if (credential.kind !== "key") return refuseApiKey(credential);
    const planned = plan(request, params);
    if (planned instanceof Response) {
      const principal = await authenticateApiKeyRequest(request);
      return principal instanceof Response ? principal : planned;
    }
    const found = await readWithApiKey(credential.key, planned.statement, planned.present);
    const accepted = acceptApiKey(credential, found?.key ?? null);
    if (accepted instanceof Response) return accepted;
    return planned.answer(found?.rows ?? []);
  });
}

/**
 * The same read after the key was checked on its own: two round trips. For a
 * read whose best plan depends on its parameters (an account's page),
 * PostgreSQL plans the statement for each request, and planning the key's
 * joins with it every time costs the database more than the round trip saves.
 */
export function checkedRead<Row extends object>(
  plan: (request: Request, params: Params) => TenantRead<Row> | Response,
) {
  return dataOperation(async (principal, request, params) => {
    const planned = plan(request, params);
    if (planned instanceof Response) return planned;
    return planned.answer(await planned.read(principal.tenantId));
  });
}

/** Methods outside the five operations answer 403 like every other path (/docs/data). */
export const outsideScope = (request: Request) => refuseOutsideScope(request);
