import { getLocale, getTranslations } from "next-intl/server";
import { describeSandboxAuthorization } from "@/lib/upstream/sandbox/consent";

const SERVICE_NAME = "Bank Connect";

/**
 * The sandbox bank's own consent page (DESIGN.md §7): what a real bank would
 * show after the redirect, with Approve and Deny. Served by this app so the
 * whole product runs offline.
 */
export default async function SandboxAuthorizePage({
  searchParams,
}: {
  searchParams: Promise<{ authorization?: string | string[] }>;
}) {
  // A repeated parameter names no authorization.
  const { authorization: given } = await searchParams;
  const authorization = typeof given === "string" ? given : "";
  const t = await getTranslations("SandboxBank");
  const found = describeSandboxAuthorization(authorization);
  const dateFormat = new Intl.DateTimeFormat(await getLocale(), { dateStyle: "long" });
  return (
    <main id="main" className="flow">
      <div className="card flow-card">
        {found ? (
          <>
            <p className="muted small">
              <span className="notice">{t("badge")}</span>
            </p>
            <h1>{t("title", { bank: found.aspsp.name })}</h1>
            <p>{t("notice")}</p>
            <p>{t("request", { app: SERVICE_NAME, date: dateFormat.format(found.validUntil) })}</p>
            <form method="post" action="/sandbox/authorize/decision" className="stack">
              <input type="hidden" name="authorization" value={authorization} />
              <p>
                <button type="submit" name="decision" value="approve" className="button">
                  {t("approve")}
                </button>{" "}
                <button type="submit" name="decision" value="deny" className="button-secondary">
                  {t("deny")}
                </button>
              </p>
            </form>
          </>
        ) : (
          <p className="alert" role="alert">
            {t("invalid")}
          </p>
        )}
      </div>
    </main>
  );
}
