import type { FlowStep } from "../db/generated/enums";
import { tenantSubject } from "../banking/tenants";
import { db } from "../db/client";
import { firstStepFor, keyModeFor, keyModeOf, STEP_PATHS, type KeyMode } from "./flows";

/**
 * Where a signed-in user's flow goes next (/docs/flow), recomputed from
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

/**
 * The step indicator: the steps this flow shows the person, in order, and
 * which one the current screen is. The list is worked out from what was true
 * when the flow started (a key made or a bank connected before it), so it
 * does not shrink while the person goes through it; before sign-in nobody is
 * known and every step of the key mode is shown.
 */
export type ProgressStep = "sign_in" | "key" | "bank" | "approve";

export interface FlowProgress {
  steps: ProgressStep[];
  /** Index of the current screen's step in `steps`. */
  current: number;
}

export function flowProgress(input: {
  keyMode: KeyMode;
  screen: ProgressStep;
  /** The user had a key before this flow started. */
  hadKey: boolean;
  /** The tenant had a connected bank before this flow started. */
  hadBank: boolean;
  /** The flow renews one of the tenant's connections: the bank comes first. */
  renewing: boolean;
}): FlowProgress {
  const needsBank = !input.hadBank || input.renewing;
  const steps: ProgressStep[] =
    input.keyMode === "partner"
      ? input.renewing
        ? ["sign_in", "bank", "approve"]
        : ["sign_in", "approve", ...(needsBank ? (["bank"] as const) : [])]
      : [
          "sign_in",
          ...(input.hadKey ? [] : (["key"] as const)),
          ...(needsBank ? (["bank"] as const) : []),
          "approve",
        ];
  if (!steps.includes(input.screen)) {
    // A screen the plan skipped (adding another bank, importing a key on a
    // new device) still gets its place, where the key mode puts it.
    const order: ProgressStep[] =
      input.keyMode === "partner"
        ? ["sign_in", "approve", "bank"]
        : ["sign_in", "key", "bank", "approve"];
    const rank = order.indexOf(input.screen);
    const at = steps.findIndex((step) => order.indexOf(step) > rank);
    steps.splice(at === -1 ? steps.length : at, 0, input.screen);
  }
  return { steps, current: steps.indexOf(input.screen) };
}

/** The step indicator of a flow's screen, from the database's record of what came before it. */
export async function loadFlowProgress(
  flow: FlowState & { createdAt: Date; renewConnectionId: string | null },
  user: { id: string; email: string; publicKeyAt: Date | null } | null,
  screen: ProgressStep,
): Promise<FlowProgress> {
  if (!user) {
    return flowProgress({
      keyMode: keyModeOf(flow.client.partner),
      screen,
      hadKey: false,
      hadBank: false,
      renewing: false,
    });
  }
  const subject = tenantSubject(flow.client.partner?.id ?? null, user);
  const [keyMode, earlier, renewed] = await Promise.all([
    keyModeFor(flow.client.partner, subject),
    db().connection.count({
      where: { tenant: { subject }, createdAt: { lt: flow.createdAt } },
    }),
    flow.renewConnectionId
      ? db().connection.count({ where: { id: flow.renewConnectionId, tenant: { subject } } })
      : 0,
  ]);
  return flowProgress({
    keyMode,
    screen,
    hadKey: user.publicKeyAt !== null && user.publicKeyAt < flow.createdAt,
    hadBank: earlier > 0,
    renewing: renewed > 0,
  });
}
