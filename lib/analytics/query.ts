import { db } from "../db/client";
import {
  APPROVAL_BUCKETS,
  END_STEPS,
  FAILURE_REASONS,
  FUNNEL_STEPS,
  type EndStep,
  type FailureReason,
} from "./events";
import { medianFromBuckets, type Bucket } from "./median";
import { periodWindow, startOf, type Period, type PeriodWindow } from "./period";

/**
 * Reading a partner's flow analytics: the counters of its clients (or one
 * client) over a period, summed into the funnel, the ways flows ended, the
 * median time to approve and a series per hour or day. Only rows stored with
 * this partner's id are read.
 */

export const OUTCOMES = [...FUNNEL_STEPS, "cancelled", "failed"] as const;
export type Outcome = (typeof OUTCOMES)[number];

export type Counts = Record<Outcome, number>;

export interface FlowAnalytics {
  window: PeriodWindow;
  clientId: string | null;
  totals: Counts;
  cancelled: Record<EndStep, number>;
  failed: Record<FailureReason, number>;
  approvalTime: { approvals: number; medianSeconds: number | null; buckets: Bucket[] };
  /** One entry per hour (24 h) or UTC day, oldest first. */
  series: { start: Date; counts: Counts }[];
}

const zeroes = <K extends string>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;

/** Whole seconds: the buckets are no finer than that. */
function roundedMedian(buckets: Bucket[]): number | null {
  const median = medianFromBuckets(buckets);
  return median === null ? null : Math.round(median);
}

const isOutcome = (event: string): event is Outcome =>
  (OUTCOMES as readonly string[]).includes(event);

export async function readFlowAnalytics(
  partnerId: string,
  options: { period: Period; clientId: string | null },
  now = new Date(),
): Promise<FlowAnalytics> {
  const window = periodWindow(options.period, now);
  const where = {
    partnerId,
    hour: { gte: window.from, lt: window.to },
    ...(options.clientId === null ? {} : { clientId: options.clientId }),
  };
  const [byDetail, byHour, times] = await Promise.all([
    db().flowStepCount.groupBy({ by: ["event", "detail"], where, _sum: { count: true } }),
    db().flowStepCount.groupBy({ by: ["hour", "event"], where, _sum: { count: true } }),
    db().flowApprovalTime.groupBy({ by: ["bucket"], where, _sum: { count: true } }),
  ]);

  const totals = zeroes(OUTCOMES);
  const cancelled = zeroes(END_STEPS);
  const failed = zeroes(FAILURE_REASONS);
  for (const row of byDetail) {
    const count = row._sum.count ?? 0;
    if (!isOutcome(row.event)) continue;
    totals[row.event] += count;
    const step = END_STEPS.find((candidate) => candidate === row.detail);
    if (row.event === "cancelled" && step) cancelled[step] += count;
    const reason = FAILURE_REASONS.find((candidate) => candidate === row.detail);
    if (row.event === "failed" && reason) failed[reason] += count;
  }

  const series = window.starts.map((start) => ({ start, counts: zeroes(OUTCOMES) }));
  const index = new Map(series.map((entry) => [entry.start.getTime(), entry.counts]));
  for (const row of byHour) {
    const counts = index.get(startOf(window.unit, row.hour).getTime());
    if (counts && isOutcome(row.event)) counts[row.event] += row._sum.count ?? 0;
  }

  const stored = new Map(times.map((row) => [row.bucket, row._sum.count ?? 0]));
  const buckets = APPROVAL_BUCKETS.map((le) => ({ le, count: stored.get(le) ?? 0 }));
  return {
    window,
    clientId: options.clientId,
    totals,
    cancelled,
    failed,
    approvalTime: {
      approvals: buckets.reduce((sum, bucket) => sum + bucket.count, 0),
      medianSeconds: roundedMedian(buckets),
      buckets,
    },
    series,
  };
}

export interface AnalyticsClient {
  id: string;
  name: string | null;
  /** Deleted since: its numbers stay in the partner's totals. */
  deleted: boolean;
}

/** The clients a partner's analytics can be narrowed to: its own, and deleted ones with numbers. */
export async function listAnalyticsClients(partnerId: string): Promise<AnalyticsClient[]> {
  const current = await db().client.findMany({
    where: { partnerId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, name: true },
  });
  const former = await db().flowStepCount.findMany({
    where: { partnerId, clientId: { notIn: current.map((client) => client.id) } },
    distinct: ["clientId"],
    select: { clientId: true },
    orderBy: { clientId: "asc" },
  });
  return [
    ...current.map((client) => ({ id: client.id, name: client.name, deleted: false })),
    ...former.map((row) => ({ id: row.clientId, name: null, deleted: true })),
  ];
}
