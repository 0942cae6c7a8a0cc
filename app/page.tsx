import { getTranslations } from "next-intl/server";
import { getEnv } from "@/lib/env";

export default async function HomePage() {
  const t = await getTranslations("Home");
  return (
    <main id="main" className="page">
      <div className="card">
        <h1>{t("title")}</h1>
        <p className="muted">{t("intro")}</p>
        <h2>{t("forPartners")}</h2>
        <ul className="links">
          <li>
            <a href="/.well-known/oauth-authorization-server">{t("metadata")}</a>
          </li>
          <li>
            <a href="/healthz">{t("health")}</a>
          </li>
          {getEnv().demoEnabled ? (
            <li>
              <a href="/demo">{t("demo")}</a>
            </li>
          ) : null}
        </ul>
      </div>
    </main>
  );
}
