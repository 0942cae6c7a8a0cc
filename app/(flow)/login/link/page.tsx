import { cookies } from "next/headers";
import { getTranslations } from "next-intl/server";
import {
  findLinkFlowId,
  inspectLoginLink,
  loginNonceCookieName,
} from "@/lib/auth/login-challenges";
import { flowBrandingById, resumePath } from "@/lib/flow/dead-ends";
import { FlowShell, SERVICE_NAME } from "../../_components/flow-shell";
import { FocusMessage } from "../../_components/focus-message";
import { loadFlowScreen } from "../../_lib/context";

/**
 * The magic link's landing page (docs/protocol.md#sign-in). Opening it consumes
 * nothing — mail scanners fetch links — so it shows a button; only a POST
 * from the browser that asked signs in. A link opened in another browser
 * says so at once (the browser's login nonce is compared, nothing is used)
 * and points to the code in the same mail. Every dead link offers the way
 * on: the flow this browser is in, or the partner the link was for.
 */
export default async function LoginLinkPage({
  searchParams,
}: {
  searchParams: Promise<{ token?: string; result?: string }>;
}) {
  const { token = "", result } = await searchParams;
  const { flow, user, branding } = await loadFlowScreen();
  const t = await getTranslations("LoginLink");
  const nonce = (await cookies()).get(loginNonceCookieName())?.value ?? null;
  const link = await inspectLoginLink(token, new Date(), nonce);
  const status = result === "other_browser" ? "other_browser" : link.status;
  // Outside the browser's own flow, the link's flow still names its partner.
  const linked = flow ? null : await flowBrandingById(await findLinkFlowId(token));
  const shownBranding = branding ?? linked?.branding ?? null;
  const partner = shownBranding?.name ?? SERVICE_NAME;

  if (status === "valid" && link.status === "valid") {
    return (
      <FlowShell flow={flow} branding={branding} user={user} step="sign_in">
        <h1>{t("title")}</h1>
        <form method="post" action="/login/link/confirm" className="stack">
          <p className="wrap">{t("confirmIntro", { email: link.email })}</p>
          <input type="hidden" name="token" value={token} />
          <p>
            <button type="submit" className="button button-block" autoFocus>
              {t("confirm")}
            </button>
          </p>
        </form>
      </FlowShell>
    );
  }

  if (status === "other_browser") {
    return (
      <FlowShell flow={flow} branding={shownBranding} user={user} step={null}>
        <h1>{t("otherBrowserTitle")}</h1>
        <FocusMessage tone="info">
          <p>{t("otherBrowser")}</p>
        </FocusMessage>
        <h2>{t("howTitle")}</h2>
        <ol>
          <li>{t("howWindow")}</li>
          <li>{t("howCode")}</li>
        </ol>
        {linked?.partnerSite ? (
          <p className="small muted">
            {t("orStartHere")} <a href={linked.partnerSite}>{t("startAgainAt", { partner })}</a>
          </p>
        ) : null}
      </FlowShell>
    );
  }

  // Used, expired or unknown: on into this browser's flow, or back to the partner.
  const signedIntoFlow = flow !== null && user !== null && flow.userId === user.userId;
  const next = signedIntoFlow
    ? { href: resumePath(flow, user.userId), label: t("continueFlow") }
    : flow
      ? { href: "/login", label: t("newEmail") }
      : linked?.partnerSite
        ? { href: linked.partnerSite, label: t("startAgainAt", { partner }) }
        : { href: "/login", label: t("startAgain") };
  return (
    <FlowShell flow={flow} branding={shownBranding} user={user} step={null}>
      <h1>{t("title")}</h1>
      <FocusMessage tone={signedIntoFlow ? "info" : "error"}>
        <p>{signedIntoFlow ? t("alreadySignedIn") : t(status === "valid" ? "unknown" : status)}</p>
      </FocusMessage>
      <p className="actions">
        <a className="button" href={next.href}>
          {next.label}
        </a>
      </p>
    </FlowShell>
  );
}
