import { getLocale, getTranslations } from "next-intl/server";
import { describeSandboxAuthorization } from "@/lib/upstream/sandbox/consent";

const SERVICE_NAME = "Bank Connect";

/**
 * The sandbox bank's own consent page (docs/architecture.md#upstream-aggregators): what a real bank would
 * show after the redirect, with Approve and Deny. Served by this app so the
 * whole product runs offline; it looks like a bank of its own, marked as a
 * test.
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
    <div className="flow bank-page">
      <header className="bank-brand">
        <span className="bank-mark" aria-hidden="true">
          {(found?.aspsp.name ?? "B").slice(0, 1)}
        </span>
        <span>{found?.aspsp.name ?? t("badge")}</span>
        <span className="badge badge-warn">{t("badge")}</span>
      </header>
      <main id="main" className="card flow-card">
        {found ? (
          <>
            <h1 className="wrap">{t("title", { bank: found.aspsp.name })}</h1>
            <p className="notice small">{t("notice")}</p>
            <p>{t("request", { app: SERVICE_NAME, date: dateFormat.format(found.validUntil) })}</p>
            <form method="post" action="/sandbox/authorize/decision">
              <input type="hidden" name="authorization" value={authorization} />
              <div className="actions">
                <button type="submit" name="decision" value="approve" className="button">
                  {t("approve")}
                </button>
                <button type="submit" name="decision" value="deny" className="button-secondary">
                  {t("deny")}
                </button>
              </div>
            </form>
          </>
        ) : (
          <>
            <p className="alert" role="alert">
              {t("invalid")}
            </p>
            <p className="actions">
              <a className="button-secondary" href="/banks">
                {t("back", { app: SERVICE_NAME })}
              </a>
            </p>
          </>
        )}
      </main>
    </div>
  );
}
