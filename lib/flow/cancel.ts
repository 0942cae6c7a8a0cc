import { countCancelled } from "../analytics/counters";
import { db } from "../db/client";
import { getEnv } from "../env";
import { negotiateLocale } from "../i18n/locales";
import { relayLabels } from "../i18n/translate";
import { OAuthError, toErrorBody } from "../oauth/errors";
import { bodyKind, readBodyText } from "../oauth/params";
import { errorFields, relayResponse } from "../oauth/relay";
import { oauthJson } from "../oauth/responses";
import { isStaleTabToken, isValidCsrfToken } from "./csrf";
import { isSameOrigin } from "../http/origin";
import { FLOW_ENDED_PATH, seeOther, STALE_TAB_PATH } from "./dead-ends";
import { findBrowserFlow } from "./flows";

/** The description the SDK tests pin for a cancel (/docs/relay). */
export const ACCESS_DENIED_DESCRIPTION = "the user declined the authorization";

/**
 * POST /oauth/cancel (/docs/flow): "back to the partner" on any
 * screen. Bound to the browser's flow, same-origin and CSRF-checked; ends the
 * flow and form-posts access_denied to its redirect URI. Rate-limited by the
 * proxy (/docs/errors).
 */
export async function handleCancelRequest(request: Request): Promise<Response> {
  const refuse = (status: number, description: string) =>
    oauthJson(toErrorBody(new OAuthError("invalid_request", description)), status);

  if (!isSameOrigin(request)) return refuse(403, "cross-origin request refused");
  if (bodyKind(request) !== "form") return refuse(400, "content type must be a form");
  const flow = await findBrowserFlow(request);
  // A browser whose flow is over (a second click, an older tab) is shown the
  // way back to the partner by the error screen; nothing is relayed twice.
  if (!flow) return seeOther(FLOW_ENDED_PATH);
  const text = await readBodyText(request).catch(() => null);
  if (text === null) return refuse(400, "request body too large");
  const form = new URLSearchParams(text);
  if (!isValidCsrfToken(flow, "cancel", form.get("csrf"))) {
    if (await isStaleTabToken(flow, "cancel", form.get("csrf"))) return seeOther(STALE_TAB_PATH);
    return refuse(403, "invalid CSRF token");
  }

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
