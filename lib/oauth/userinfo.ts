import { authenticateApiKeyOrRefuse } from "./bearer";
import type { z } from "zod";
import { oauthJson } from "./responses";
import type { Userinfo } from "./schemas";

/** GET /oauth/userinfo (/docs/token), authenticated by the API key. */
export async function handleUserinfoRequest(request: Request): Promise<Response> {
  const principal = await authenticateApiKeyOrRefuse(request);
  if (principal instanceof Response) return principal;
  return oauthJson({
    sub: principal.subject,
    email: principal.email,
    partner_id: principal.partnerId,
    client_id: principal.clientId,
    scope: principal.scope,
    expires_at: principal.expiresAt.toISOString(),
  } satisfies z.infer<typeof Userinfo>);
}
