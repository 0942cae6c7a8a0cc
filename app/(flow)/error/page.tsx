import { cookies } from "next/headers";
import { getTranslations } from "next-intl/server";
import { findSessionUser, sessionCookieName } from "@/lib/auth/sessions";
import { isDatabaseUnavailable } from "@/lib/db/faults";
import { lookUpBrowserFlow } from "@/lib/flow/dead-ends";
import { flowCookieName } from "@/lib/flow/flows";
import { toScreenBranding } from "@/lib/partners/branding";
import { FlowShell, SERVICE_NAME } from "../_components/flow-shell";
import { FocusMessage } from "../_components/focus-message";
import { loadFlowScreen } from "../_lib/context";

/**
 * Who is signed in and what became of this browser's flow; nothing while the
 * database is unreachable (this screen is where such failures land, so it
 * must not fail).
 */
async function lookUp(reason: string | undefined) {
  if (reason === "unavailable") return { user: null, found: null };
  const store = await cookies();
  try {
    const user = await findSessionUser(store.get(sessionCookieName())?.value);
    const found = await lookUpBrowserFlow(store.get(flowCookieName())?.value, user?.userId ?? null);
    return { user, found };
  } catch (error) {
    if (isDatabaseUnavailable(error)) return { user: null, found: null };
    throw error;
  }
}

/**
 * Where requests that cannot go on land. The flow cookie is looked up in any
 * state (read-only) so the screen keeps the partner's look and offers the
 * way forward that fits: continue a live flow (an older tab, Back), return to
 * the partner once the flow is done, start again at the partner once it ran
 * out of time.
 */
export default async function ErrorPage({
  searchParams,
}: {
  searchParams: Promise<{ reason?: string }>;
}) {
  const { reason } = await searchParams;
  const t = await getTranslations("ErrorPage");
  const { user, found } = await lookUp(reason);
  const outcome = found?.outcome ?? null;
  const branding = found
    ? toScreenBranding(found.flow.client.partner, found.flow.client.name)
    : null;
  const partner = branding?.name ?? SERVICE_NAME;
  // A live flow keeps its "Back to the partner" (the access_denied relay).
  const live = outcome?.kind === "live" ? (await loadFlowScreen()).flow : null;

  const view =
    reason === "unavailable"
      ? { title: t("title"), text: t("unavailable"), tone: "warn" as const }
      : outcome?.kind === "approved"
        ? { title: t("doneTitle"), text: t("approved", { partner }), tone: "success" as const }
        : outcome?.kind === "cancelled"
          ? { title: t("doneTitle"), text: t("cancelled", { partner }), tone: "info" as const }
          : outcome?.kind === "live"
            ? reason === "stale_tab"
              ? { title: t("staleTitle"), text: t("stale"), tone: "warn" as const }
              : { title: t("liveTitle"), text: t("live"), tone: "info" as const }
            : outcome?.kind === "expired"
              ? { title: t("title"), text: t("expiredFlow", { partner }), tone: "error" as const }
              : {
                  title: t("title"),
                  text: reason === "expired" ? t("expired") : t("generic"),
                  tone: "error" as const,
                };
  const next =
    outcome?.kind === "live"
      ? { href: outcome.resume, label: t("continue") }
      : outcome && outcome.partnerSite
        ? {
            href: outcome.partnerSite,
            label:
              outcome.kind === "expired"
                ? t("startAgainAt", { partner })
                : t("returnTo", { partner }),
          }
        : { href: "/", label: t("home") };

  return (
    <FlowShell flow={live} branding={branding} user={user} step={null}>
      <h1>{view.title}</h1>
      <FocusMessage tone={view.tone}>
        <p>{view.text}</p>
      </FocusMessage>
      <p className="actions">
        <a className="button" href={next.href}>
          {next.label}
        </a>
      </p>
    </FlowShell>
  );
}
