import type { ReactNode } from "react";
import { getTranslations } from "next-intl/server";
import { getEnv } from "@/lib/env";

/** The owner of the demo partner, as the development seed makes it (scripts/lib/seed.ts). */
const DEMO_OWNER = "demo@example.com";

const strong = (chunks: ReactNode) => <strong>{chunks}</strong>;

/**
 * The landing page: what the service is, where a person who connected a
 * bank manages the access they gave (My access), and the first things to
 * try; with the demo on (development), who to sign in as and how to read
 * the mail.
 */
export default async function HomePage() {
  const t = await getTranslations("Home");
  const { demoEnabled, upstream } = getEnv();
  return (
    <main id="main" className="page">
      <div className="card stack">
        <h1>{t("title")}</h1>
        <p className="muted">{t("intro")}</p>
        <section aria-labelledby="people-title" className="stack home-people">
          <h2 id="people-title">{t("people.title")}</h2>
          <p>{t("people.body")}</p>
          <p>
            <a className="button-secondary" href="/account">
              {t("people.link")}
            </a>
          </p>
        </section>
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
        {demoEnabled ? (
          <section aria-labelledby="start-title" className="stack">
            <h2 id="start-title">{t("start.title")}</h2>
            <p>{t.rich("start.owner", { email: DEMO_OWNER, strong })}</p>
            <p>
              {t("start.mail")} <code>npm run admin -- mail last --to {DEMO_OWNER}</code>
            </p>
            <ol className="stack">
              <li>
                <a href="/demo">/demo</a> — {t("start.demo")}
              </li>
              <li>
                <a href="/dashboard">/dashboard</a> — {t("start.dashboard", { email: DEMO_OWNER })}
              </li>
              <li>
                <a href="/docs">/docs</a> — {t("start.docs")}
              </li>
            </ol>
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
