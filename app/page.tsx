import { getTranslations } from "next-intl/server";
import { getEnv } from "@/lib/env";

/** The landing page: what the service is, and the first things to try. */
export default async function HomePage() {
  const t = await getTranslations("Home");
  const { demoEnabled, upstream } = getEnv();
  return (
    <main id="main" className="page">
      <div className="card stack">
        <h1>{t("title")}</h1>
        <p className="muted">{t("intro")}</p>
        {demoEnabled ? (
          <section aria-labelledby="try-title" className="stack">
            <h2 id="try-title">{t("tryIt")}</h2>
            <p>
              <a className="button" href="/demo">
                {t("demo")}
              </a>
            </p>
            {upstream === "sandbox" ? <p className="muted small">{t("sandbox")}</p> : null}
          </section>
        ) : null}
        <h2>{t("forPartners")}</h2>
        <ul className="links">
          <li>
            <a href="/docs">{t("docs")}</a>
          </li>
          <li>
            <a href="/dashboard">{t("dashboard")}</a>
          </li>
          <li>
            <a href="/openapi.json">{t("openapi")}</a>
          </li>
          <li>
            <a href="/.well-known/oauth-authorization-server">{t("metadata")}</a>
          </li>
          <li>
            <a href="/healthz">{t("health")}</a>
          </li>
        </ul>
      </div>
    </main>
  );
}
