import { log } from "../log";
import { countFlowStep } from "../metrics";
import { MARKS, toEndStep, type FlowEvent, type FlowFailure } from "./events";
import { markAndCountFlowStep } from "./queries";

/**
 * The flow analytics counters (docs/analytics.md): one function per event,
 * each called where the service sees the event happen. A count is one
 * statement: it sets the event's bit on the flow and, only if the bit was
 * not set yet, adds one to the counter of the flow's partner, client, start
 * hour and event (INSERT … ON CONFLICT DO UPDATE). A reload, a retry or a
 * second tab therefore never counts a flow's step twice.
 *
 * A count never fails the person's request: one that cannot be stored (the
 * database is busy) is logged and dropped, and the numbers are a little low.
 */

/**
 * Marks `bit` on the flow and, on the first time only, counts `event` for the
 * flow's start hour; an approval also adds to its time bucket. One statement,
 * so the mark and the counts are stored together or not at all. Flows of a
 * house client (no partner) are marked but counted nowhere: no partner reads them.
 */
async function countOnce(
  flowId: string,
  event: FlowEvent,
  detail: string,
  bit: number,
): Promise<void> {
  await markAndCountFlowStep(flowId, event, detail, bit);
}

async function count(flowId: string, event: FlowEvent, detail: string, bit: number) {
  // The operator's Prometheus counter of the same step (docs/observability.md).
  countFlowStep(event);
  try {
    await countOnce(flowId, event, detail, bit);
  } catch (error) {
    log.warn("analytics.count_failed", { event, error });
  }
}

/** Authorize created a flow. */
export const countStarted = (flowId: string) => count(flowId, "started", "", MARKS.started);

/** The flow got its signed-in person (at authorize, or after signing in). */
export const countSignedIn = (flowId: string) => count(flowId, "signed_in", "", MARKS.signed_in);

/** The person registered a new key in this flow (user-key mode), first or replacing one. */
export const countKeySetUp = (flowId: string) => count(flowId, "key_set_up", "", MARKS.key_set_up);

/** A bank's accounts were stored for this flow. */
export const countBankConnected = (flowId: string) =>
  count(flowId, "bank_connected", "", MARKS.bank_connected);

/** The person approved: a code was minted for the relay. */
export const countApproved = (flowId: string) => count(flowId, "approved", "", MARKS.approved);

/** The person cancelled ("back to the partner") on the screen of `step`. */
export const countCancelled = (flowId: string, step: string) =>
  count(flowId, "cancelled", toEndStep(step), MARKS.cancelled);

/** The flow met a failure at the bank; each kind counts once per flow. */
export const countFlowFailure = (flowId: string, failure: FlowFailure) =>
  count(flowId, "failed", failure, MARKS[failure]);
