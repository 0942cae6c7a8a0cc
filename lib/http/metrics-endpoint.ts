import { timingSafeEqualString } from "../crypto/constant-time";
import { getEnv } from "../env";
import { renderMetrics } from "../metrics";
import type { EdgeAnswer } from "./edge";

export const METRICS_PATH = "/metrics";

/**
 * `GET /metrics`: this process's Prometheus metrics, for a scraper holding
 * `METRICS_TOKEN` as a bearer token (docs/observability.md). Without the
 * setting the path does not exist (null: Next answers its 404). A missing or
 * wrong token is a 401 with no body; the token is compared in constant time.
 */
export async function metricsAnswer(request: {
  method: string;
  pathname: string;
  authorization?: string;
}): Promise<EdgeAnswer | null> {
  const token = getEnv().metricsToken;
  if (!token || request.pathname !== METRICS_PATH) return null;
  if (request.method !== "GET" && request.method !== "HEAD") {
    return { status: 405, headers: { Allow: "GET, HEAD" }, body: null };
  }
  const presented = /^Bearer (\S+)$/i.exec(request.authorization ?? "")?.[1] ?? "";
  if (!timingSafeEqualString(presented, token)) {
    return {
      status: 401,
      headers: { "WWW-Authenticate": 'Bearer realm="metrics"', "Cache-Control": "no-store" },
      body: null,
    };
  }
  const { contentType, body } = await renderMetrics();
  return {
    status: 200,
    headers: { "Content-Type": contentType, "Cache-Control": "no-store" },
    body,
  };
}
