import { createHmac } from "node:crypto";
import { timingSafeEqualString } from "../crypto/constant-time";
import { db } from "../db/client";

/**
 * CSRF protection for the flow's browser POSTs (docs/security.md): a token bound
 * to the flow and the action, derived from the flow's secret, plus a check
 * that the request comes from this service's own origin.
 *
 * The token names its flow (`<flow id>.<mac>`), so a form from a tab whose
 * flow was replaced in this browser (the partner's link opened again) is
 * recognised as out of date and answered with the way to the current flow
 * instead of a bare refusal.
 */

export type FlowAction = "cancel" | "login" | "approve" | "key-setup" | "start-over" | "bank";

type CsrfFlow = { id: string; csrfSecret: string };

const mac = (secret: string, action: FlowAction) =>
  createHmac("sha256", secret).update(`flow-csrf:${action}`).digest("base64url");

export function csrfToken(flow: CsrfFlow, action: FlowAction): string {
  return `${flow.id}.${mac(flow.csrfSecret, action)}`;
}

export function isValidCsrfToken(
  flow: CsrfFlow,
  action: FlowAction,
  presented: string | null,
): boolean {
  return presented !== null && timingSafeEqualString(csrfToken(flow, action), presented);
}

const TOKEN_SHAPE = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/;

/**
 * A token that is not the current flow's but is genuinely another flow's
 * (one this service rendered into a page): the page is from a tab whose flow
 * this browser has since replaced or finished. Nothing is done with that
 * flow; the caller only answers with the way forward.
 */
export async function isStaleTabToken(
  current: { id: string } | null,
  action: FlowAction,
  presented: string | null,
): Promise<boolean> {
  const match = presented ? TOKEN_SHAPE.exec(presented) : null;
  if (!match || match[1] === current?.id) return false;
  const earlier = await db().flow.findUnique({
    where: { id: match[1] },
    select: { id: true, csrfSecret: true },
  });
  return earlier !== null && isValidCsrfToken(earlier, action, presented);
}
