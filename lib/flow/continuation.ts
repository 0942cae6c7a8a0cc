import { findBrowserFlow, type FlowContinuation } from "./flows";

/**
 * Whether a new authorization continues the browser's current attempt
 * (docs/analytics.md). Signing in sends the browser back through
 * /oauth/authorize, which makes a new flow; so do a reload of the partner's
 * link and a second tab. While the browser's flow of the same client is
 * still open, the new flow takes over what was counted for it and when it
 * started, so the person is counted as one start, each step once, and the
 * time to approve runs from the first start.
 */
export async function continuationOf(
  request: Request,
  clientId: string,
): Promise<FlowContinuation | null> {
  const current = await findBrowserFlow(request);
  if (!current || current.clientId !== clientId || current.completedAt) return null;
  return { analyticsMarks: current.analyticsMarks, analyticsStart: current.analyticsStart };
}
