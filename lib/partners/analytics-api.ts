import type { z } from "zod";
import { answeringOutages, temporarilyUnavailable } from "../http/outage";
import { errorJson, privateJson } from "../http/respond";
import { describeClientIdProblem } from "../keys/client-credentials";
import { authenticateOwner } from "./owner-session";
import { END_STEPS, FAILURE_REASONS } from "../analytics/events";
import { DEFAULT_PERIOD, parsePeriod, PERIODS, type Period } from "../analytics/period";
import {
  listAnalyticsClients,
  readFlowAnalytics,
  type Counts,
  type FlowAnalytics,
} from "../analytics/query";
import type { FlowAnalyticsWire, FlowCountsWire } from "../analytics/wire";

/**
 * GET /api/partner/analytics?period=7d&client=obc_…: the flow analytics of
 * the owner's partner (docs/analytics.md). Same session rules as
 * /api/partner/me: an owner's browser session, `?partner=` for an owner of
 * several, API keys refused with 403. `client` narrows the numbers to one of
 * the partner's clients (or a deleted one that still has numbers). A
 * malformed period or client id is 400; a well-formed client id that is not
 * this partner's answers 404 alike whether it exists elsewhere or not, so
 * another partner's clients cannot be told apart from unknown ids.
 */

const badRequest = (description: string) => errorJson(400, "invalid_request", description);

export interface AnalyticsQuery {
  period: Period;
  clientId: string | null;
}

/** The period and client asked for, or the refusal (400, or 404 for a client not the partner's). */
export async function parseAnalyticsQuery(
  partnerId: string,
  params: URLSearchParams,
): Promise<AnalyticsQuery | Response> {
  for (const name of ["period", "client", "partner"]) {
    if (params.getAll(name).length > 1) return badRequest(`${name} may be given only once`);
  }
  const periodText = params.get("period");
  const period = periodText === null ? DEFAULT_PERIOD : parsePeriod(periodText);
  if (!period) return badRequest(`period must be one of ${PERIODS.join(", ")}`);
  const clientId = params.get("client") || null;
  if (clientId !== null) {
    const problem = describeClientIdProblem(clientId);
    if (problem) return badRequest(`client: ${problem}`);
    const clients = await listAnalyticsClients(partnerId);
    if (!clients.some((client) => client.id === clientId)) {
      return errorJson(404, "not_found", "no such client");
    }
  }
  return { period, clientId };
}

export function toCountsWire(counts: Counts): z.infer<typeof FlowCountsWire> {
  return {
    started: counts.started,
    signedIn: counts.signed_in,
    keySetUp: counts.key_set_up,
    bankConnected: counts.bank_connected,
    approved: counts.approved,
    cancelled: counts.cancelled,
    failed: counts.failed,
  };
}

export function toAnalyticsWire(analytics: FlowAnalytics): z.infer<typeof FlowAnalyticsWire> {
  const { window } = analytics;
  return {
    period: window.period,
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    unit: window.unit,
    client: analytics.clientId,
    totals: toCountsWire(analytics.totals),
    cancelled: END_STEPS.map((step) => ({ step, count: analytics.cancelled[step] })),
    failed: FAILURE_REASONS.map((reason) => ({ reason, count: analytics.failed[reason] })),
    approvalTime: analytics.approvalTime,
    series: analytics.series.map((entry) => ({
      start: entry.start.toISOString(),
      counts: toCountsWire(entry.counts),
    })),
  };
}

export const handlePartnerAnalytics = answeringOutages(
  async (request: Request): Promise<Response> => {
    const owner = await authenticateOwner(request, { mutation: false });
    if (owner instanceof Response) return owner;
    const query = await parseAnalyticsQuery(owner.partnerId, new URL(request.url).searchParams);
    if (query instanceof Response) return query;
    return privateJson(toAnalyticsWire(await readFlowAnalytics(owner.partnerId, query)));
  },
  temporarilyUnavailable,
);
