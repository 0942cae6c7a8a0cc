import { z } from "zod";
import { END_STEPS, FAILURE_REASONS } from "./events";
import { PERIODS } from "./period";

/** GET /api/partner/analytics's answer; /openapi.json is generated from it. */

const count = z.number().int().min(0);

export const FlowCountsWire = z
  .object({
    started: count.describe("Flows started (the authorization request was accepted)"),
    signedIn: count.describe("Flows in which the person signed in"),
    keySetUp: count.describe("Flows in which the person set up a new key (user-key mode)"),
    bankConnected: count.describe("Flows in which a bank's accounts were stored"),
    approved: count.describe("Flows approved: a code was sent to the redirect URI"),
    cancelled: count.describe("Flows the person cancelled"),
    failed: count.describe("Failures at the bank (a flow counts once per reason)"),
  })
  .meta({ id: "FlowCounts" });

export const FlowAnalyticsWire = z
  .object({
    period: z.enum(PERIODS),
    from: z.string().describe("ISO 8601, the period's first instant (UTC)"),
    to: z.string().describe("ISO 8601, the first instant after the period (UTC)"),
    unit: z.enum(["hour", "day"]).describe("The length of each entry of `series`"),
    client: z.string().nullable().describe("The client the numbers are narrowed to; null: all"),
    totals: FlowCountsWire,
    cancelled: z
      .array(z.object({ step: z.enum(END_STEPS), count }))
      .describe("Cancelled flows by the step they were cancelled on"),
    failed: z
      .array(z.object({ reason: z.enum(FAILURE_REASONS), count }))
      .describe("Failures by reason (docs/analytics.md)"),
    approvalTime: z.object({
      approvals: count,
      medianSeconds: z
        .number()
        .nullable()
        .describe("Median seconds from start to approval, read from the buckets; null: none"),
      buckets: z
        .array(z.object({ le: z.number().int(), count }))
        .describe("Approvals that took at most `le` seconds (and more than the previous bound)"),
    }),
    series: z
      .array(z.object({ start: z.string().describe("ISO 8601"), counts: FlowCountsWire }))
      .describe("Per hour or UTC day, oldest first"),
  })
  .meta({ id: "FlowAnalytics" });
