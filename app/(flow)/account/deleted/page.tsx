import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { wayBackAfterDeletion } from "@/lib/account/way-back";
import { findSessionUser, sessionCookieName } from "@/lib/auth/sessions";
import { isDatabaseUnavailable } from "@/lib/db/faults";
import { flowCookieName } from "@/lib/flow/flows";
import { FlowShell, SERVICE_NAME } from "../../_components/flow-shell";
import { FocusMessage } from "../../_components/focus-message";
import "../account.css";

/**
 * Where "Delete everything" lands (docs/account.md#delete-everything): what
 * was deleted, that partners keep what they already read, and the way back
 * to the partner the person came from (the browser's flow, or the partner
 * the page was given if that site is one it registered), else to the home
 * page. Someone signed in has not just deleted everything: they go to My
 * access.
 */
export default async function AccountDeletedPage({
  searchParams,
}: {
  searchParams: Promise<{ partner?: string; site?: string }>;
}) {
  const store = await cookies();
  const search = await searchParams;
  const found = await Promise.all([
    findSessionUser(store.get(sessionCookieName())?.value),
    wayBackAfterDeletion({
      flowCookie: store.get(flowCookieName())?.value,
      partnerId: search.partner,
      site: search.site,
    }),
  ]).catch((error: unknown) => {
    // The page still says what happened while the database is briefly away.
    if (isDatabaseUnavailable(error)) return [null, null] as const;
    throw error;
  });
  const [user, back] = found;
  if (user) redirect("/account");
  const t = await getTranslations("Account.deleted");
  const errors = await getTranslations("ErrorPage");

  return (
    <FlowShell flow={null} branding={null} user={null} step={null}>
      <h1>{t("title")}</h1>
      <FocusMessage tone="success">
        <p>{t("intro", { service: SERVICE_NAME })}</p>
      </FocusMessage>
      <ul className="account-deleted-list" data-testid="deleted-list">
        <li>{t("connections")}</li>
        <li>{t("data")}</li>
        <li>{t("access")}</li>
        <li>{t("signIn")}</li>
      </ul>
      <p className="hint">{t("held")}</p>
      <p className="hint">{t("again", { service: SERVICE_NAME })}</p>
      <p className="actions">
        <a className="button" href={back?.href ?? "/"}>
          {back ? errors("returnTo", { partner: back.partner }) : errors("home")}
        </a>
      </p>
    </FlowShell>
  );
}
