import { findSignedInUser, isFreshSignIn } from "../auth/sessions";
import { tenantSubject } from "../banking/tenants";
import { db } from "../db/client";
import { jsonResponse } from "../http/respond";
import { approveFlow } from "./approve";
import { flowLoginPath } from "./continue";
import { isStaleTabToken, isValidCsrfToken } from "./csrf";
import { isSameOrigin } from "../http/origin";
import { FLOW_ENDED_PATH, seeOther, STALE_TAB_PATH } from "./dead-ends";
import { findBrowserFlow, keyModeFor } from "./flows";
import { serverRelay } from "./relay-for-flow";
import { resolveNextStep, tenantHasConnection } from "./steps";
import { readBodyTextOrRefuse } from "../http/body-limits";

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
 * in again (a new mail to the same address) before it may approve. User-key
 * mode does not ask for that: approving there needs the key unlocked in this
 * browser, by the passphrase, which a passer-by at a shared browser does not
 * know, or by the tab the person set it up or unlocked it in within the last
 * 15 minutes (docs/key-model.md); and a code approved without the key reaches
 * the partner with nothing that opens the data, which is sealed to that key.
 */
export async function handleConsentApprove(request: Request): Promise<Response> {
  const refuse = (status: number, error: string) => jsonResponse({ error }, { status });
  if (!isSameOrigin(request)) return refuse(403, "cross_origin");
  const [flow, user] = await Promise.all([findBrowserFlow(request), findSignedInUser(request)]);
  const isJson = (request.headers.get("content-type") ?? "").startsWith("application/json");
  // A page that no longer matches the browser's flow is sent on, not refused:
  // the form to a screen that says what happened, the script told where to go.
  const sendOn = (status: number, error: string, location: string) =>
    isJson ? jsonResponse({ error, location }, { status }) : seeOther(location);
  if (!flow) return sendOn(401, "no_flow", FLOW_ENDED_PATH);
  if (!user || flow.userId !== user.userId) return sendOn(401, "no_flow", "/login");

  const text = await readBodyTextOrRefuse(request);
  if (text instanceof Response) return text;
  let csrf: string | null = null;
  let relayedKey: string | null = null;
  if (isJson) {
    try {
      const body = JSON.parse(text) as { csrf?: unknown; publicKey?: unknown } | null;
      csrf = typeof body?.csrf === "string" ? body.csrf : null;
      relayedKey = typeof body?.publicKey === "string" ? body.publicKey : null;
    } catch {
      return refuse(400, "invalid_body");
    }
  } else {
    csrf = new URLSearchParams(text).get("csrf");
  }
  if (!isValidCsrfToken(flow, "approve", csrf)) {
    if (await isStaleTabToken(flow, "approve", csrf))
      return sendOn(409, "stale_tab", STALE_TAB_PATH);
    return refuse(403, "invalid_csrf");
  }

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
  if (!isJson) return new Response(null, { status: 303, headers: { Location: "/consent" } });
  if (!user.publicKey || !(await tenantHasConnection(subject)))
    return refuse(409, "onboarding_incomplete");
  // The browser names the key it is about to relay: a screen left open while
  // the user started over elsewhere would hand over a key that opens nothing.
  if (relayedKey !== user.publicKey) return refuse(409, "key_changed");
  const approval = await approveFlow(flow.id, user.userId);
  return jsonResponse({ redirectUri: approval.redirectUri, fields: approval.fields });
}
