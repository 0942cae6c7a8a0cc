import { countApproved } from "../analytics/counters";
import { ensureTenant } from "../banking/tenants";
import { db } from "../db/client";
import { getEnv } from "../env";
import { mintAuthorizationCode } from "../oauth/codes";
import { OAuthError } from "../oauth/errors";
import { successFields, type RelayField } from "../oauth/relay";

/**
 * The user approves the flow on the consent screen: the tenant is settled and
 * a one-time code minted (RFC 6749 §4.1.2; docs/protocol.md#authorization-codes: minted at
 * approval, so its 300 seconds start when the partner receives it). Returns what the relay
 * posts; in user-key mode the browser fills privateKey/publicKey itself.
 */
export interface Approval {
  redirectUri: string;
  fields: RelayField[];
  tenantSubject: string;
}

export async function approveFlow(
  flowId: string,
  userId: string,
  now = new Date(),
): Promise<Approval> {
  const issuer = getEnv().issuer;
  const approval = await db().$transaction(async (tx) => {
    // Completing the flow is the conditional update: it can be approved once.
    const completed = await tx.flow.updateMany({
      where: { id: flowId, userId, completedAt: null, expiresAt: { gt: now } },
      data: { completedAt: now, step: "done" },
    });
    if (completed.count !== 1) {
      throw new OAuthError("invalid_request", "this authorization request is no longer open");
    }
    const flow = await tx.flow.findUniqueOrThrow({
      where: { id: flowId },
      include: {
        user: { select: { id: true, email: true, publicKey: true } },
        client: { select: { partner: { select: { id: true, recipientPublicKey: true } } } },
      },
    });
    if (!flow.user) throw new OAuthError("invalid_request", "the flow has no signed-in user");
    const tenant = await ensureTenant(tx, { user: flow.user, partner: flow.client.partner });
    const code = await mintAuthorizationCode(
      tx,
      {
        flowId: flow.id,
        clientId: flow.clientId,
        redirectUri: flow.redirectUri,
        codeChallenge: flow.codeChallenge,
        scope: flow.scope,
        tenantId: tenant.id,
      },
      now,
    );
    return {
      redirectUri: flow.redirectUri,
      fields: successFields({ code, state: flow.state, iss: issuer }),
      tenantSubject: tenant.subject,
    };
  });
  await countApproved(flowId);
  return approval;
}
