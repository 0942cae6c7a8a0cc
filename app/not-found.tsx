import Link from "next/link";
import { getTranslations } from "next-intl/server";

export default async function NotFound() {
  const t = await getTranslations("NotFound");
  return (
    <main id="main" className="page">
      <div className="card">
        <h1>{t("title")}</h1>
        <p className="muted">{t("body")}</p>
        <p>
          <Link href="/">{t("home")}</Link>
        </p>
      </div>
    </main>
  );
}
