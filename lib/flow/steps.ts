import type { FlowStep } from "../db/generated/enums";
import { tenantSubject } from "../banking/tenants";
import { db } from "../db/client";
import { firstStepFor, keyModeFor, STEP_PATHS, type KeyMode } from "./flows";

/**
 * Where a signed-in user's flow goes next (DESIGN.md §6.6), recomputed from
 * what is true now: user-key mode onboards (key, first bank) before consent;
 * partner-key mode asks consent first, then a bank, then relays.
 */
export interface FlowState {
  id: string;
  consentedAt: Date | null;
  client: { partner: { id: string; recipientPublicKey: string | null } | null };
}

export async function tenantHasConnection(subject: string): Promise<boolean> {
  return (await db().connection.count({ where: { tenant: { subject } } })) > 0;
}

export async function resolveNextStep(
  flow: FlowState,
  user: { id: string; email: string; publicKey: string | null },
): Promise<{ step: FlowStep; path: string; keyMode: KeyMode }> {
  const subject = tenantSubject(flow.client.partner?.id ?? null, user);
  const keyMode = await keyModeFor(flow.client.partner, subject);
  const hasConnection = await tenantHasConnection(subject);
  const step: FlowStep =
    keyMode === "partner" && flow.consentedAt
      ? hasConnection
        ? "relay"
        : "banks"
      : firstStepFor({
          keyMode,
          userHasKey: Boolean(user.publicKey),
          tenantHasConnection: hasConnection,
        });
  await db().flow.update({ where: { id: flow.id }, data: { step } });
  return { step, path: STEP_PATHS[step], keyMode };
}
