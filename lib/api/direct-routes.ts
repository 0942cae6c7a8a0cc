import { isDatabaseReachable, pendingMigrations } from "../db/health";
import { EnvError } from "../env";
import { jsonResponse } from "../http/respond";
import { handleRevokeRequest } from "../oauth/revoke";
import { handleTokenRequest } from "../oauth/token";
import { handleUserinfoRequest } from "../oauth/userinfo";
import { upstream } from "../upstream";
import { bankApplicationWarnings } from "../upstream/application-check";
import { planAccounts } from "./accounts";
import { listConnections } from "./data";
import { checkedRead, dataOperation, keyedRead, type RouteContext } from "./route";
import { handleAccountSync, handleBulkSync } from "./sync";
import { planTransactions } from "./transactions";

/**
 * The partner API's handlers, and the table the service's HTTP server answers
 * them from without entering Next (docs/edge.md, "Direct routes"). They are
 * fetch-style functions of a Request and the path's parameters: the app's
 * route files export these same functions, so Next and the direct lane run
 * one code path. Routing them through Next would cost these endpoints more
 * CPU than their own work (docs/benchmarks.md#cpu-per-request).
 *
 * Only exact paths and the methods listed here are answered directly;
 * anything else (a trailing slash, another method, a page) goes on to Next,
 * which keeps its own answers for those.
 */

type Params = Record<string, string>;
export type DirectHandler = (request: Request, context?: RouteContext) => Promise<Response>;

export const tokenRoute: DirectHandler = (request) => handleTokenRequest(request);
export const revokeRoute: DirectHandler = (request) => handleRevokeRequest(request);
export const userinfoRoute: DirectHandler = (request) => handleUserinfoRequest(request);

export const accountsRoute: DirectHandler = keyedRead((request) =>
  planAccounts(new URL(request.url).searchParams),
);
export const transactionsRoute: DirectHandler = checkedRead((request, params) =>
  planTransactions(params.id ?? "", new URL(request.url).searchParams),
);
export const connectionsRoute: DirectHandler = dataOperation((principal) =>
  listConnections(principal),
);
export const accountSyncRoute: DirectHandler = dataOperation((principal, request, params) =>
  handleAccountSync(principal, request, params.id ?? ""),
);
export const bulkSyncRoute: DirectHandler = dataOperation((principal, request) =>
  handleBulkSync(principal, request),
);

/**
 * The combined health answer kept for existing monitors: 503 while the
 * database cannot be reached. An orchestrator should ask /livez and /readyz
 * instead (docs/operations.md, "Probes"). A setup problem of the bank
 * application (lib/upstream/application-check.ts) is listed in `warnings` and
 * leaves the answer 200: syncs and reads still work, and a restart would not
 * fix it.
 */
export async function healthRoute(): Promise<Response> {
  const database = await isDatabaseReachable();
  const warnings = bankApplicationWarnings();
  return jsonResponse(
    {
      status: database ? "ok" : "unavailable",
      database: database ? "ok" : "unreachable",
      ...(warnings.length > 0 && { warnings }),
    },
    { status: database ? 200 : 503, headers: { "Cache-Control": "no-store" } },
  );
}

const NO_STORE = { "Cache-Control": "no-store" };

/**
 * Liveness: the process answers. No database, no upstream: an outage of
 * either must not make an orchestrator restart every instance.
 */
export async function livezRoute(): Promise<Response> {
  return jsonResponse({ status: "ok" }, { headers: NO_STORE });
}

type Check = { status: "ok" } | { status: "failed" | "skipped"; reason: string };

/**
 * The bank aggregator's settings, as the service reads them: a refusal names
 * the settings at fault, never their values.
 */
function upstreamCheck(): Check {
  try {
    upstream();
    return { status: "ok" };
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    return { status: "failed", reason: error.problems.join("; ") };
  }
}

async function migrationsCheck(): Promise<Check> {
  try {
    const pending = await pendingMigrations();
    if (pending.length === 0) return { status: "ok" };
    return {
      status: "failed",
      reason: `${pending.length} migration${pending.length === 1 ? "" : "s"} not applied: ${pending.join(", ")}`,
    };
  } catch (error) {
    return {
      status: "failed",
      reason: `could not be read (${error instanceof Error ? error.name : "error"})`,
    };
  }
}

/**
 * Readiness: whether this instance can serve requests now. 200 when the
 * database answers, every shipped migration is applied and the bank
 * aggregator is configured; else 503, with each check's status and, for one
 * that failed, why (no address, credential or setting value).
 */
export async function readyzRoute(): Promise<Response> {
  const upstreamChecked = upstreamCheck();
  // Settings the service refuses leave nothing else to ask: the database's are among them.
  const configured = upstreamChecked.status === "ok";
  const reachable = configured && (await isDatabaseReachable());
  const checks: Record<"database" | "migrations" | "upstream", Check> = {
    database: reachable
      ? { status: "ok" }
      : configured
        ? { status: "failed", reason: "unreachable: SELECT 1 did not succeed within 2 s" }
        : { status: "skipped", reason: "the settings are invalid" },
    migrations: reachable
      ? await migrationsCheck()
      : { status: "skipped", reason: "the database is unreachable" },
    upstream: upstreamChecked,
  };
  const ready = Object.values(checks).every((check) => check.status === "ok");
  return jsonResponse(
    { status: ready ? "ready" : "not_ready", checks },
    { status: ready ? 200 : 503, headers: NO_STORE },
  );
}

interface DirectRoute {
  method: "GET" | "POST";
  /** The path's segments; `:name` is one parameter segment. */
  segments: readonly string[];
  handler: DirectHandler;
}

const route = (method: DirectRoute["method"], path: string, handler: DirectHandler) => ({
  method,
  segments: path.split("/").slice(1),
  handler,
});

export const DIRECT_ROUTES: readonly DirectRoute[] = [
  route("POST", "/oauth/token", tokenRoute),
  route("POST", "/oauth/revoke", revokeRoute),
  route("GET", "/oauth/userinfo", userinfoRoute),
  route("GET", "/api/accounts", accountsRoute),
  route("GET", "/api/accounts/:id/transactions", transactionsRoute),
  route("POST", "/api/accounts/:id/sync", accountSyncRoute),
  route("GET", "/api/connections", connectionsRoute),
  route("POST", "/api/sync", bulkSyncRoute),
  route("GET", "/healthz", healthRoute),
  route("GET", "/livez", livezRoute),
  route("GET", "/readyz", readyzRoute),
];

/**
 * The direct route serving this method and path, with its parameters
 * percent-decoded as Next decodes them; null when Next should route it. A
 * parameter that does not decode is left to Next's path (the edge answers
 * those 400 before this is asked).
 */
export function matchDirectRoute(
  method: string,
  pathname: string,
): { handler: DirectHandler; params: Params } | null {
  const segments = pathname.split("/").slice(1);
  for (const candidate of DIRECT_ROUTES) {
    if (candidate.method !== method || candidate.segments.length !== segments.length) continue;
    const params: Params = {};
    const matches = candidate.segments.every((expected, index) => {
      const actual = segments[index]!;
      if (!expected.startsWith(":")) return expected === actual;
      if (actual === "") return false;
      try {
        params[expected.slice(1)] = decodeURIComponent(actual);
        return true;
      } catch {
        return false;
      }
    });
    if (matches) return { handler: candidate.handler, params };
  }
  return null;
}
