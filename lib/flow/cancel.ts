import { countCancelled } from "../analytics/counters";
import { db } from "../db/client";
import { getEnv } from "../env";
import { negotiateLocale } from "../i18n/locales";
import { relayLabels } from "../i18n/translate";
import { errorFields, relayResponse } from "../oauth/relay";
import { FLOW_ENDED_PATH, seeOther } from "./dead-ends";
import { guardFlowPost, type FlowPostRule } from "./guard";

/** The description the SDK tests pin for a cancel (/docs/relay). */
export const ACCESS_DENIED_DESCRIPTION = "the user declined the authorization";

/**
 * POST /oauth/cancel (/docs/flow): "back to the partner" on any
 * screen. Bound to the browser's flow, same-origin and CSRF-checked; ends the
 * flow and form-posts access_denied to its redirect URI. Rate-limited by the
 * proxy (/docs/errors).
 */
/**
 * Any screen's "Back to the partner", signed in or not. A browser whose flow is
 * over (a second click, an older tab) is shown the way back to the partner by
 * the error screen; nothing is relayed twice. Refusals without a screen are
 * the OAuth error body of the endpoints under /oauth/.
 */
const CANCEL_FORM = {
  body: "form",
  errors: "oauth",
  flow: "required",
  user: "ignored",
  token: "cancel",
} as const satisfies FlowPostRule;

export async function handleCancelRequest(request: Request): Promise<Response> {
  const post = await guardFlowPost(request, CANCEL_FORM);
  if (post instanceof Response) return post;
  const { flow } = post;

  // Ends the flow once: a second cancel or an approval after it finds nothing open.
  const ended = await db().flow.updateMany({
    where: { id: flow.id, completedAt: null },
    data: { completedAt: new Date(), step: "done" },
  });
  if (ended.count !== 1) return seeOther(FLOW_ENDED_PATH);
  await countCancelled(flow.id, flow.step);

  const locale = negotiateLocale({
    uiLocales: flow.locale,
    acceptLanguage: request.headers.get("accept-language"),
  });
  return relayResponse(
    flow.redirectUri,
    errorFields({
      error: "access_denied",
      description: ACCESS_DENIED_DESCRIPTION,
      iss: getEnv().issuer,
      state: flow.state,
    }),
    await relayLabels(locale),
  );
}
