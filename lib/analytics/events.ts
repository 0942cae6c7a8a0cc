/**
 * What flow analytics counts (docs/analytics.md). Every flow is counted once
 * per step it reaches, in the UTC hour it started, so that the numbers of a
 * period follow the same flows from start to end. These tables are the one
 * vocabulary of the counters: the partner's dashboard and its JSON API read
 * the same names.
 */

/** The steps of the funnel, in the order a new person takes them. */
export const FUNNEL_STEPS = [
  "started",
  "signed_in",
  "key_set_up",
  "bank_connected",
  "approved",
] as const;
export type FunnelStep = (typeof FUNNEL_STEPS)[number];

/** The screens a flow can be cancelled on. */
export const END_STEPS = ["login", "key_setup", "banks", "consent"] as const;
export type EndStep = (typeof END_STEPS)[number];

/**
 * Why a flow failed, all met at the bank; the person may still try another
 * bank afterwards, so a failed flow can go on to be approved.
 * `bank_unavailable`: the bank's consent could not be started;
 * `bank_denied`: the bank (or the person there) refused the consent;
 * `bank_failed`: the accounts could not be fetched or stored;
 * `bank_busy`: no sync slot came free in time.
 */
export const FAILURE_REASONS = [
  "bank_unavailable",
  "bank_denied",
  "bank_failed",
  "bank_busy",
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];
export type FlowFailure = FailureReason;

export type FlowEvent = FunnelStep | "cancelled" | "failed";

/** The bit each once-per-flow count sets on `Flow.analyticsMarks` when it is counted. */
export const MARKS = {
  started: 1 << 0,
  signed_in: 1 << 1,
  key_set_up: 1 << 2,
  bank_connected: 1 << 3,
  approved: 1 << 4,
  cancelled: 1 << 5,
  bank_unavailable: 1 << 6,
  bank_denied: 1 << 7,
  bank_failed: 1 << 8,
  bank_busy: 1 << 9,
} as const satisfies Record<FunnelStep | "cancelled" | FlowFailure, number>;

/**
 * Upper bounds, in seconds, of the buckets of the time from a flow's start to
 * its approval. Fixed bounds make histograms of different hours and clients
 * add up exactly; the median read from them is off by at most the width of
 * its bucket (lib/analytics/median.ts). The last bound is a flow's lifetime:
 * no flow can be approved later than that.
 */
export const APPROVAL_BUCKETS = [
  10, 20, 30, 45, 60, 90, 120, 180, 240, 300, 420, 600, 900, 1200, 1800, 2700, 3600,
] as const;

/** The bucket an approval `seconds` after the flow's start falls in. */
export function approvalBucketOf(seconds: number): number {
  return APPROVAL_BUCKETS.find((bound) => seconds <= bound) ?? APPROVAL_BUCKETS.at(-1) ?? 3600;
}

/** The step a flow was on, as analytics names the screens (the relay belongs to the approval). */
export function toEndStep(step: string): EndStep {
  return END_STEPS.find((candidate) => candidate === step) ?? "consent";
}
