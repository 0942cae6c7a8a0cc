import { getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import type { SignedInUser } from "@/lib/auth/sessions";
import { csrfToken } from "@/lib/flow/csrf";
import type { ScreenBranding } from "@/lib/partners/branding";
import { SignOutForm } from "@/app/_components/sign-out-form";
import { requestNonce, type LoadedFlow } from "../_lib/context";

const SERVICE_NAME = "Bank Connect";

/**
 * Every flow screen: the partner's branding (or the service's own look), the
 * content, the partner's links and "back to the partner", which posts to
 * /oauth/cancel and ends in the access_denied relay. With `user`, the footer
 * says who is signed in and offers signing out.
 */
export async function FlowShell({
  flow,
  branding,
  user = null,
  children,
}: {
  flow: LoadedFlow | null;
  branding: ScreenBranding | null;
  user?: Pick<SignedInUser, "sessionId" | "email"> | null;
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

  return (
    <div className="flow">
      {accent ? <style nonce={nonce}>{accent}</style> : null}
      <header className="flow-header">
        {branding?.logoUrl ? (
          // eslint-disable-next-line @next/next/no-img-element -- served by us, sized by CSS
          <img className="flow-logo" src={branding.logoUrl} alt={t("logoAlt", { partner })} />
        ) : null}
        <span className="flow-partner">{partner}</span>
      </header>
      <main id="main" className="card flow-card">
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
        <p className="muted small">{t("securedBy", { service: SERVICE_NAME })}</p>
      </footer>
    </div>
  );
}

export { SERVICE_NAME };
