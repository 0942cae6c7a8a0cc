import { relayLabels } from "../i18n/translate";
import { relayResponse } from "../oauth/relay";
import { approveFlow } from "./approve";
import { flowLocale } from "./locale";

/**
 * Partner-key mode's last step: mint the code and let the server render the
 * relay, with empty key fields (the partner opens the data with its own key).
 */
export async function serverRelay(
  request: Request,
  flow: Parameters<typeof flowLocale>[0]["flow"] & { id: string },
  user: { userId: string; locale: string | null },
): Promise<Response> {
  const approval = await approveFlow(flow.id, user.userId);
  const locale = flowLocale({
    flow,
    userChoice: user.locale,
    acceptLanguage: request.headers.get("accept-language"),
  });
  return relayResponse(approval.redirectUri, approval.fields, await relayLabels(locale));
}
