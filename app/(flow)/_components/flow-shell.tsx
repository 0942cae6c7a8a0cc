import { getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import type { SignedInUser } from "@/lib/auth/sessions";
import { csrfToken } from "@/lib/flow/csrf";
import { loadFlowProgress, type ProgressStep } from "@/lib/flow/steps";
import type { ScreenBranding } from "@/lib/partners/branding";
import { SignOutForm } from "@/app/_components/sign-out-form";
import { ClientMessages } from "@/lib/i18n/client-messages";
import { requestNonce, type LoadedFlow } from "../_lib/context";
import { StepIndicator } from "./step-indicator";
import { TabGuard } from "./tab-guard";

const SERVICE_NAME = "Bank Connect";

/**
 * Every flow screen: the partner's branding (or the service's own look), the
 * step indicator, the content, the partner's links and "back to the partner",
 * which posts to /oauth/cancel and ends in the access_denied relay. With
 * `user`, the footer says who is signed in and offers signing out. `step`
 * is the step of the screen shown (`null` shows no indicator): each screen
 * names its own, never the flow's current step, which Back, another tab or a
 * new browser can leave elsewhere. Without a live flow but with branding
 * (a flow that is over), the partner's look stays and nothing can be posted.
 */
export async function FlowShell({
  flow,
  branding,
  user = null,
  step,
  children,
}: {
  flow: LoadedFlow | null;
  branding: ScreenBranding | null;
  user?: Pick<SignedInUser, "sessionId" | "email"> | null;
  step: ProgressStep | null;
  children: ReactNode;
}) {
  const t = await getTranslations("Flow");
  const nonce = await requestNonce();
  const partner = branding?.name ?? SERVICE_NAME;
  const accent =
    branding?.accentColor && branding.accentTextColor
      ? `:root{--accent:${branding.accentColor};--accent-contrast:${branding.accentTextColor}}`
      : null;
  const links = [
    [branding?.supportUrl, t("support")],
    [branding?.termsUrl, t("terms")],
    [branding?.privacyUrl, t("privacy")],
  ].filter((link): link is [string, string] => Boolean(link[0]));
  const progress = flow && step ? await loadFlowProgress(flow, flow.user ?? null, step) : null;

  return (
    <div className="flow">
      {accent ? <style nonce={nonce}>{accent}</style> : null}
      <header className="flow-header">
        {branding?.logoUrl ? (
          // eslint-disable-next-line @next/next/no-img-element -- served by us, sized by CSS
          <img className="flow-logo" src={branding.logoUrl} alt={t("logoAlt", { partner })} />
        ) : (
          <span className="flow-monogram" aria-hidden="true">
            {Array.from(partner)[0]?.toUpperCase()}
          </span>
        )}
        <span className="flow-partner">{partner}</span>
      </header>
      {flow ? (
        <ClientMessages namespaces={["Tabs"]}>
          <TabGuard flowId={flow.id} startedAt={flow.createdAt.getTime()} />
        </ClientMessages>
      ) : null}
      <main id="main" className="card flow-card">
        {progress ? <StepIndicator progress={progress} /> : null}
        {children}
      </main>
      <footer className="flow-footer">
        {user ? <SignOutForm user={user} /> : null}
        {flow ? (
          <form method="post" action="/oauth/cancel">
            <input type="hidden" name="csrf" value={csrfToken(flow, "cancel")} />
            <button type="submit" className="button-link">
              {t("backTo", { partner })}
            </button>
          </form>
        ) : null}
        {links.length > 0 ? (
          <ul className="links">
            {links.map(([href, label]) => (
              <li key={label}>
                <a href={href} rel="noopener noreferrer" target="_blank">
                  {label}
                </a>
              </li>
            ))}
          </ul>
        ) : null}
        <p>{t("securedBy", { service: SERVICE_NAME })}</p>
      </footer>
    </div>
  );
}

export { SERVICE_NAME };
