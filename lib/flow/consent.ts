import { isFreshSignIn, type SignedInUser } from "../auth/sessions";
import { timingSafeEqualString } from "../crypto/constant-time";
import { sealJson } from "../crypto/envelope";
import { keyedHash } from "../crypto/keyed-hash";
import { tenantSubject } from "../banking/tenants";
import { db } from "../db/client";
import { jsonResponse } from "../http/respond";
import { approveFlow } from "./approve";
import { flowLoginPath } from "./continue";
import { keyModeFor } from "./flows";
import { guardFlowPost, type FlowPostRule } from "./guard";
import { serverRelay } from "./relay-for-flow";
import { resolveNextStep, tenantHasConnection } from "./steps";

/**
 * Allow access: a form (partner-key mode) or the consent page's script (user-key
 * mode), from the flow's own signed-in browser with the flow's token. Consent
 * is given on the way to or from the bank; a key not set up yet is set up first.
 */
export const APPROVE_POST = {
  body: "form-or-json",
  errors: "json",
  flow: "required",
  user: "flow",
  token: "approve",
  steps: ["consent", "banks", "relay"],
} as const satisfies FlowPostRule;

/**
 * POST /consent/approve (/docs/flow).
 * - Partner-key mode (a form): consent comes first; then the bank picker, or
 *   straight to the server-rendered relay when a bank is already connected.
 * - User-key mode (JSON from the consent page's script): mints the code and
 *   answers the relay fields; the browser adds privateKey/publicKey from the
 *   key it unlocked and posts the relay itself.
 *
 * The mode is the tenant's (lib/flow/flows.ts keyModeFor): a user whose data
 * is sealed to their own key stays in user-key mode after the partner
 * installs a recipient key.
 *
 * Re-confirmation (docs/sessions.md): in partner-key mode one click grants the
 * partner the data, so a session older than FRESH_SIGN_IN_SECONDS must sign
 * in again (a new mail to the same address) before it may approve. In
 * user-key mode the browser proves instead that it holds the person's
 * private key: the consent page carries a challenge sealed to the registered
 * public key (`keyProofChallenge`), and the approval must carry what is
 * inside. A passer-by at a signed-in browser, or a copied session cookie,
 * cannot open it without the passphrase (or the tab that unlocked the key
 * within the last 15 minutes, docs/key-model.md), so a partner whose access
 * the person ended cannot be granted it again in their name.
 */
export async function handleConsentApprove(request: Request): Promise<Response> {
  const post = await guardFlowPost(request, APPROVE_POST);
  if (post instanceof Response) return post;
  const { flow, user, body } = post;
  const relayedKey =
    body.kind === "json" && typeof body.fields.publicKey === "string"
      ? body.fields.publicKey
      : null;

  const subject = tenantSubject(flow.client.partner?.id ?? null, {
    id: user.userId,
    email: user.email,
  });
  if ((await keyModeFor(flow.client.partner, subject)) === "partner") {
    if (!isFreshSignIn(user)) {
      const reconfirm = flowLoginPath({ email: user.email, reconfirm: "1" });
      return new Response(null, {
        status: 303,
        headers: { Location: reconfirm, "Cache-Control": "no-store" },
      });
    }
    await db().flow.update({ where: { id: flow.id }, data: { consentedAt: new Date() } });
    const next = await resolveNextStep(
      { ...flow, consentedAt: new Date() },
      { id: user.userId, email: user.email, publicKey: user.publicKey },
    );
    if (next.step === "relay") return serverRelay(request, flow, user);
    return new Response(null, { status: 303, headers: { Location: next.path } });
  }

  // User-key mode needs the browser: the private key is only there.
  if (body.kind !== "json") {
    return new Response(null, { status: 303, headers: { Location: "/consent" } });
  }
  if (!user.publicKey || !(await tenantHasConnection(subject)))
    return post.refuse("onboarding_incomplete");
  // The browser names the key it is about to relay: a screen left open while
  // the user started over elsewhere would hand over a key that opens nothing.
  if (relayedKey !== user.publicKey) return post.refuse("key_changed");
  const proof = body.fields.proof;
  if (typeof proof !== "string" || !timingSafeEqualString(proof, keyProof(flow, user))) {
    return post.refuse("key_not_proven");
  }
  const approval = await approveFlow(flow.id, user.userId);
  return jsonResponse({ redirectUri: approval.redirectUri, fields: approval.fields });
}

type ProofSession = Pick<SignedInUser, "sessionId" | "publicKey">;

/**
 * What only the holder of the private key can read from the consent page:
 * bound to this flow, this browser session and this key, so it is worth
 * nothing to another flow, a later sign-in or after starting over.
 */
const keyProof = (flow: { id: string }, user: ProofSession) =>
  keyedHash("key-proof", `${flow.id}:${user.sessionId}:${user.publicKey ?? ""}`);

/**
 * The consent page's challenge in user-key mode: `{proof}` sealed to the
 * person's registered public key, as their bank data is (/docs/envelopes).
 * The page opens it with the unlocked key and sends `proof` with the approval.
 */
export function keyProofChallenge(
  flow: { id: string },
  user: ProofSession & { publicKey: string },
) {
  return sealJson(user.publicKey, { proof: keyProof(flow, user) });
}
