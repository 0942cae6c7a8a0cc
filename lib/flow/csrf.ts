import { createHmac } from "node:crypto";
import { timingSafeEqualString } from "../crypto/constant-time";
import { getEnv } from "../env";

/**
 * CSRF protection for the flow's browser POSTs (DESIGN.md §8): a token bound
 * to the flow and the action, derived from the flow's secret, plus a check
 * that the request comes from this service's own origin.
 */

export type FlowAction = "cancel" | "login" | "approve" | "key-setup" | "start-over" | "bank";

export function csrfToken(flow: { csrfSecret: string }, action: FlowAction): string {
  return createHmac("sha256", flow.csrfSecret).update(`flow-csrf:${action}`).digest("base64url");
}

export function isValidCsrfToken(
  flow: { csrfSecret: string },
  action: FlowAction,
  presented: string | null,
): boolean {
  return presented !== null && timingSafeEqualString(csrfToken(flow, action), presented);
}

/** The request's Origin is this service's (browsers send it on every POST). */
export function isSameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  return origin !== null && origin === new URL(getEnv().issuer).origin;
}
