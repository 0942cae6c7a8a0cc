import type { Metadata } from "next";
import { getLocale, getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import "./globals.css";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("Common");
  return { title: t("serviceName"), referrer: "same-origin" };
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  const locale = await getLocale();
  const t = await getTranslations("Common");
  return (
    <html lang={locale}>
      <body>
        <a className="skip-link" href="#main">
          {t("skipToContent")}
        </a>
        {children}
      </body>
    </html>
  );
}
