import { findSignedInUser } from "../auth/sessions";
import { tenantSubject } from "../banking/tenants";
import { getEnv } from "../env";
import { checkAuthorizeRequest } from "../oauth/authorize";
import { continuationOf } from "./continuation";
import { attachUser, createFlow, keyModeFor } from "./flows";

function redirect(location: string, setCookie?: string): Response {
  const headers = new Headers({ Location: location, "Cache-Control": "no-store" });
  if (setCookie) headers.append("Set-Cookie", setCookie);
  return new Response(null, { status: 303, headers });
}

/**
 * GET /oauth/authorize: a request that passes the protocol's checks
 * (lib/oauth/authorize.ts) starts a flow bound to this browser. A signed-in
 * person goes on to the flow's next step; anyone else signs in first and
 * comes back here.
 */
export async function handleAuthorizeRequest(request: Request): Promise<Response> {
  const checked = await checkAuthorizeRequest(request);
  if (!checked.ok) return checked.response;
  const { authorization } = checked;
  const { client } = authorization;
  try {
    // A browser coming back through authorize (after signing in, a reload, a
    // second tab) continues its open flow's analytics: one start, each step once.
    const continues = await continuationOf(request, client.id);
    const { flowId, setCookie } = await createFlow(
      {
        clientId: client.id,
        redirectUri: authorization.redirectUri,
        state: authorization.state,
        codeChallenge: authorization.codeChallenge,
        scope: authorization.scope,
        locale: authorization.locale,
        loginHint: authorization.loginHint,
        challenge: authorization.challenge,
        renewConnectionId: authorization.renewConnectionId,
      },
      undefined,
      continues,
    );

    const user = await findSignedInUser(request);
    if (!user) {
      const url = new URL(request.url);
      const returnUrl = `${getEnv().issuer}${url.pathname}${url.search}`;
      return redirect(`/login?${new URLSearchParams({ returnUrl })}`, setCookie);
    }
    const subject = tenantSubject(client.partner?.id ?? null, {
      id: user.userId,
      email: user.email,
    });
    const next = await attachUser(
      { id: flowId, renewConnectionId: authorization.renewConnectionId },
      { id: user.userId, publicKey: user.publicKey },
      await keyModeFor(client.partner, subject),
      subject,
    );
    return redirect(next.path, setCookie);
  } catch (error) {
    return checked.refuse(error);
  }
}
